import unittest

import report


class ReportTest(unittest.TestCase):
    def test_format_money(self):
        self.assertEqual(report.format_money(-1234.5), "-$1,234.50")
        self.assertEqual(report.format_money(0), "$0.00")
        self.assertEqual(report.format_money(1000000), "$1,000,000.00")

    def test_lines_unchanged(self):
        self.assertEqual(report.line_total("pen", 3, 1.5), "pen x3: $4.50")
        self.assertEqual(report.grand_total([1000, -2500.25]), "total: -$1,500.25")


if __name__ == "__main__":
    unittest.main()
