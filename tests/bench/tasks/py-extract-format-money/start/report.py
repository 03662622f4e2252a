"""Money in reports."""


def line_total(name, qty, price):
    amount = qty * price
    sign = "-" if amount < 0 else ""
    return "%s x%d: %s$%s" % (name, qty, sign, "{:,.2f}".format(abs(amount)))


def grand_total(amounts):
    amount = sum(amounts)
    sign = "-" if amount < 0 else ""
    return "total: %s$%s" % (sign, "{:,.2f}".format(abs(amount)))
