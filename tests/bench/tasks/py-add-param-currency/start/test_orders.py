import unittest

from money import format_price
from orders import order_line


class CurrencyTest(unittest.TestCase):
    def test_format_price(self):
        self.assertEqual(format_price(12.5), "$12.50")
        self.assertEqual(format_price(12.5, "EUR"), "€12.50")
        self.assertEqual(format_price(12.5, currency="GBP"), "£12.50")
        self.assertEqual(format_price(3, "CHF"), "3.00 CHF")

    def test_order_line(self):
        self.assertEqual(order_line({"name": "tea", "amount": 3, "currency": "GBP"}), "tea: £3.00")
        self.assertEqual(order_line({"name": "pen", "amount": 1.2}), "pen: $1.20")


if __name__ == "__main__":
    unittest.main()
