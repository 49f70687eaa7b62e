"""web_fetch's HTML to Markdown, in a worker process of its own: bounded in time and memory.

markdownify (over BeautifulSoup) is slow and hungry: a 1 MB page takes seconds and a hostile
4.8 MB one took 46 s and 784 MB. So the conversion never runs in Larik's process:

* **What the converter sees** is bounded: ``<script>``, ``<style>``, ``<svg>``, ``<noscript>``,
  ``<template>`` and ``<iframe>`` blocks are dropped first (a linear scan of the bytes; an
  unclosed one drops the rest), then only the first :data:`MAX_HTML` bytes are converted
  (the model is sent 100,000 characters at most anyway).
* **The worker** is ``python -I`` running this file (no Larik import, no environment, no
  project folder on ``sys.path``), its address space capped at :data:`MAX_MEMORY` by
  ``RLIMIT_AS`` before it reads a byte. web_fetch gives it what is left of the fetch's time
  limit and kills it at the deadline (:func:`larik.agent.tools.web_fetch.run`).
* A page nested too deeply for markdownify's recursion comes back as its plain text.

The protocol: the body on stdin; on stdout one JSON line (``seen``: bytes converted, ``cut``:
whether the HTML was cut at :data:`MAX_HTML`, ``flat``: plain text instead of Markdown), then
the text. Exit status :data:`OUT_OF_MEMORY` when the memory cap was met.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MAX_HTML = 500_000  # bytes of HTML the converter is given (after scripts and styles)
MAX_MEMORY = 512 * 1024 * 1024  # bytes of address space the worker may use
OUT_OF_MEMORY = 3

_DROPPED = ("script", "style", "noscript", "template", "svg", "iframe")
_OPEN = re.compile(rb"<(" + b"|".join(t.encode() for t in _DROPPED) + rb")\b")


def drop_blocks(body: bytes) -> bytes:
    """``body`` without its script, style, … blocks. Linear in the size of ``body``: each
    opening tag is matched with the next closing one (none: the rest is dropped)."""
    low = body.lower()
    out: list[bytes] = []
    pos = 0
    while True:
        m = _OPEN.search(low, pos)
        if m is None:
            out.append(body[pos:])
            break
        out.append(body[pos : m.start()])
        end = low.find(b"</" + m.group(1), m.end())
        if end < 0:
            break
        close = low.find(b">", end)
        if close < 0:
            break
        pos = close + 1
    return b"".join(out)


def convert(body: bytes, charset: str, cap: int = MAX_HTML) -> tuple[str, dict[str, Any]]:
    """The page as Markdown, and what was done to get there (``seen``, ``cut``, ``flat``)."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):  # type: ignore[misc]  # markdownify has no type hints
        def convert_img(self, el: Any, text: str, parent_tags: Any) -> str:
            if str(el.get("src", "")).startswith("data:"):
                return ""  # inline image data: kilobytes of base64 for nothing
            return str(super().convert_img(el, text, parent_tags))  # type: ignore[misc]

        def convert_a(self, el: Any, text: str, parent_tags: Any) -> str:
            if str(el.get("href", "")).strip().lower().startswith("javascript:"):
                return text
            return str(super().convert_a(el, text, parent_tags))  # type: ignore[misc]

    html = drop_blocks(body)
    info: dict[str, Any] = {"cut": len(html) > cap, "flat": False}
    html = html[:cap]
    info["seen"] = len(html)
    markup: str | bytes = decode(html, charset) if charset else html  # bytes: bs4 finds it
    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup(list(_DROPPED)):
        tag.decompose()
    try:
        text = str(Converter(heading_style="ATX", bullets="-").convert_soup(soup))
    except RecursionError:  # nested deeper than markdownify's recursion goes
        text, info["flat"] = soup.get_text("\n"), True
    return re.sub(r"\n{3,}", "\n\n", text).strip(), info


def decode(body: bytes, charset: str) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def main(argv: list[str]) -> int:
    """``python -I _html.py MEMORY CAP [CHARSET] < body``."""
    import os
    import resource

    memory, cap = int(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        body = sys.stdin.buffer.read()
        text, info = convert(body, argv[3] if len(argv) > 3 else "", cap)
        sys.stdout.buffer.write(
            json.dumps(info, allow_nan=False).encode() + b"\n" + text.encode("utf-8")
        )
        sys.stdout.buffer.flush()
    except MemoryError:
        os._exit(OUT_OF_MEMORY)  # nothing more can be done safely without memory
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
