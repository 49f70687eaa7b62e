"""What makes bytes an image Larik sends to a model: the media type by the first bytes (PNG,
JPEG, GIF, WebP — the four every provider with images takes), and the most one image may be.
``read_file`` and an ``@path`` or pasted image (``larik.session.attachments``) both use it. A
leaf: the standard library only."""

from __future__ import annotations

__all__ = ["BY_SUFFIX", "MAX_IMAGE", "MEDIA_TYPES", "image_type"]

MAX_IMAGE = 5 * 1024 * 1024  # bytes of one image (Anthropic's limit, the smallest of them)

BY_SUFFIX = {  # a file's suffix: the image it says it is
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
MEDIA_TYPES = frozenset(BY_SUFFIX.values())

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str:
    """The media type of image bytes by their first bytes, or "" when they are none of them."""
    for magic, media in _MAGIC:
        if head.startswith(magic):
            return media
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return ""
