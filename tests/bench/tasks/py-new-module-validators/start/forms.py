"""Sign-up form."""


class SignupForm:
    def __init__(self, email, password):
        self.email = email
        self.password = password

    def errors(self):
        """What is wrong with the form, in order; empty when it is fine."""
        errs = []
        if len(self.password) < 8:
            errs.append("password too short")
        return errs
