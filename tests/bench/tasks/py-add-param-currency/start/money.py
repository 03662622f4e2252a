"""Prices."""


def format_price(amount):
    """A price with two decimals."""
    return "$%.2f" % amount
