def greet(name: str) -> str:
    return "Hello, " + name


def shout(name: str) -> str:
    return greet(name).upper()
