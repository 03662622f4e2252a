import unittest

from slug import slugify


class SlugifyTest(unittest.TestCase):
    def test_single_hyphens(self):
        self.assertEqual(slugify("Hello,  World!"), "hello-world")
        self.assertEqual(slugify("  a -- b  "), "a-b")
        self.assertEqual(slugify("Go 1.22"), "go-1-22")
        self.assertEqual(slugify("plain"), "plain")


if __name__ == "__main__":
    unittest.main()
