import unittest

from forms import SignupForm
from validators import is_email


class ValidatorsTest(unittest.TestCase):
    def test_is_email(self):
        for good in ["a@b.co", "first.last@example.org"]:
            self.assertTrue(is_email(good), good)
        for bad in ["", "ab.co", "@b.co", "a@b", "a@.b", "a@b.", "a@@b.co", "a@b@c.co"]:
            self.assertFalse(is_email(bad), bad)

    def test_form(self):
        self.assertEqual(SignupForm("bad", "longpassword").errors(), ["invalid email"])
        self.assertEqual(SignupForm("bad", "short").errors(), ["invalid email", "password too short"])
        self.assertEqual(SignupForm("a@b.co", "longpassword").errors(), [])


if __name__ == "__main__":
    unittest.main()
