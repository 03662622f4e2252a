"""Order lines."""

from money import format_price


def order_line(order):
    """"name: price" for an order dict with "name" and "amount"."""
    return "%s: %s" % (order["name"], format_price(order["amount"]))
