def total(a, b):
    return a + b


def double(x):
    return total(x, x)


# GREETING is printed by the demo.
GREETING = "hello"
