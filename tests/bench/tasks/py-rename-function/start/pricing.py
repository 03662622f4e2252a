"""Prices and totals."""


def calc_tot(prices, discount=0.0):
    """The sum of prices, less a discount given as a fraction (0.1 is 10%)."""
    return round(sum(prices) * (1 - discount), 2)
