"""Text helpers."""

import re
import unicodedata


def slugify(text: str, max_length: int = 50) -> str:
    """Turn ``text`` into a URL slug (see the task for the rules)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) <= max_length:
        return slug
    cut = slug[:max_length]
    if "-" in cut and slug[max_length] != "-":
        cut = cut[: cut.rfind("-")]
    return cut.strip("-")


def word_count(text: str) -> int:
    return len(text.split())
