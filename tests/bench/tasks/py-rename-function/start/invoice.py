"""Invoices."""

from pricing import calc_tot


def render(lines, discount=0.0):
    """One line per item, then the total."""
    out = ["%s: %.2f" % (name, price) for name, price in lines]
    out.append("total: %.2f" % calc_tot([p for _, p in lines], discount))
    return "\n".join(out)
