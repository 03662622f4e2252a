"""Slugs for titles."""


def slugify(title):
    """Lower-case words joined by single hyphens: "Hello,  World!" -> "hello-world"."""
    out = []
    for ch in title.lower():
        if ch.isalnum():
            out.append(ch)
        else:
            out.append("-")
    return "".join(out).strip("-")
