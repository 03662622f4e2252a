import unittest

import pricing
from invoice import render
from pricing import calculate_total


class RenameTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(calculate_total([10, 5], 0.1), 13.5)

    def test_old_name_gone(self):
        self.assertFalse(hasattr(pricing, "calc_tot"))

    def test_render(self):
        self.assertEqual(render([("tea", 2.5), ("cake", 3)]), "tea: 2.50\ncake: 3.00\ntotal: 5.50")


if __name__ == "__main__":
    unittest.main()
