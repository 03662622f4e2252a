import unittest

from batching import chunks


class ChunksTest(unittest.TestCase):
    def test_chunks(self):
        self.assertEqual(chunks([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])
        self.assertEqual(chunks([1, 2], 2), [[1, 2]])
        self.assertEqual(chunks([], 3), [])
        self.assertEqual(chunks([1, 2, 3], 1), [[1], [2], [3]])

    def test_bad_size(self):
        with self.assertRaises(ValueError):
            chunks([1], 0)


if __name__ == "__main__":
    unittest.main()
