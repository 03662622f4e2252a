import unittest

from basket import add_item


class AddItemTest(unittest.TestCase):
    def test_fresh_list_each_call(self):
        self.assertEqual(add_item("a"), ["a"])
        self.assertEqual(add_item("b"), ["b"])

    def test_given_list(self):
        mine = ["x"]
        self.assertIs(add_item("y", mine), mine)
        self.assertEqual(mine, ["x", "y"])


if __name__ == "__main__":
    unittest.main()
