# AI: rename the function add to total
def add(a, b):
    return a + b


def double(x):
    return add(x, x)


# GREETING is printed by the demo.
GREETING = "hello"
