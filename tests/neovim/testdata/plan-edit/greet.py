# AI: add type hints to greet
def greet(name):
    return "Hello, " + name


def shout(name):
    return greet(name).upper()
