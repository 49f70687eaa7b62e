"""Text helpers."""


def slugify(text: str, max_length: int = 50) -> str:
    """Turn ``text`` into a URL slug.

    - lower-case ASCII letters and digits are kept;
    - accented Latin letters lose their accents ("é" -> "e");
    - every run of other characters becomes a single "-";
    - no leading or trailing "-";
    - the result is at most ``max_length`` characters, cut at a "-" boundary when one exists
      within the limit, and never ends with "-".

    >>> slugify("Hello, World!")
    'hello-world'
    """
    raise NotImplementedError


def word_count(text: str) -> int:
    return len(text.split())
