"""A shopping basket."""


def add_item(item, items=[]):
    """Append item to items (a new list when none is given) and return the list."""
    items.append(item)
    return items
