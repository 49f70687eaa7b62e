"""Markdown files that start with a front matter block: custom commands and skills.

::

    ---
    description: Review a file for bugs
    argument-hint: [path] [focus]
    ---
    The body: the prompt, or the skill's instructions.

The block is YAML, read with PyYAML's ``BaseLoader``: every scalar stays the string it was
written as (``yes`` is "yes", ``3.5`` is "3.5"), nothing is constructed from tags. PyYAML is
imported when the first such file is read, never at start-up. Claude Code accepts front matter
that is not valid YAML — its own docs show ``argument-hint: [pr-number] [priority]`` — so when
YAML refuses the block and every line of it is a plain ``key: value``, those pairs are taken as
written. Anything else leaves the front matter out and says why in ``problem`` (one line); the
caller decides whether the file is still usable.

Values are read with :func:`text`: a string, else "" — a list or a mapping (or an alias bomb)
is never turned into a string, so its size never matters; a one-line value that YAML reads as a
list (``argument-hint: [path]``) is the text as it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_FRONT_MATTER", "Document", "one_line", "parse", "text", "words"]

#: A front matter block longer than this is left out (no command or skill needs more).
MAX_FRONT_MATTER = 16 * 1024

_FLAT_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    problem: str = ""  # why the front matter was left out ("" when it was read, or absent)
    has_front_matter: bool = False
    written: dict[str, str] = field(default_factory=dict)  # one-line values as written


def parse(source: str) -> Document:
    """Split ``source`` into front matter and body (a BOM and CRLF line ends are accepted)."""
    source = source.removeprefix("\ufeff")
    lines = source.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return Document(body=source)
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip() in ("---", "...")), 0)
    if not end:
        return Document(
            body=source,
            problem="front matter opened with --- is never closed; read as plain text",
        )
    block = "".join(lines[1:end])
    body = "".join(lines[end + 1 :])
    if len(block) > MAX_FRONT_MATTER:
        return Document(
            body=body,
            problem=f"front matter longer than {MAX_FRONT_MATTER // 1024} KB, left out",
            has_front_matter=True,
        )
    meta, problem = _read(block)
    written = (_flat(block, partial=True) or {}) if meta else {}
    return Document(meta, body, problem, has_front_matter=True, written=written)


def _read(block: str) -> tuple[dict[str, Any], str]:
    if not block.strip():
        return {}, ""
    import yaml

    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    try:
        data = yaml.load(block, Loader=loader)  # BaseLoader: strings, lists and maps only
        if isinstance(data, dict):
            return {str(k): v for k, v in data.items()}, ""
        why = "front matter is not a list of key: value lines"
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        reason = getattr(e, "problem", None) or "invalid YAML"
        why = f"front matter is not valid YAML{where}: {reason}"
    except (RecursionError, ValueError, TypeError):
        why = "front matter is not valid YAML: nested too deeply"
    flat = _flat(block)
    if flat is not None:
        return flat, ""
    return {}, why + "; left out"


def _flat(block: str, partial: bool = False) -> dict[str, Any] | None:
    """``key: value`` lines as written (what Claude Code reads when YAML would not); None when
    a line is something else, unless ``partial``."""
    out: dict[str, Any] = {}
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _FLAT_LINE.match(line.rstrip())
        if m is None:
            if partial:
                continue
            return None
        value = (m.group(2) or "").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out.setdefault(m.group(1), value)
    return out


def text(doc: Document, key: str) -> str:
    """The string value of ``key``, stripped; "" when absent. A one-line value YAML reads as a
    list (``argument-hint: [path]``) is the text as written, as Claude Code shows it."""
    value = doc.meta.get(key)
    if isinstance(value, str):
        return value.strip()
    return doc.written.get(key, "").strip() if isinstance(value, list) else ""


def words(doc: Document, key: str) -> tuple[str, ...]:
    """A list of strings, written as a YAML list or as one string separated by commas or
    spaces (``allowed-tools``)."""
    value = doc.meta.get(key)
    if isinstance(value, list):
        return tuple(v.strip() for v in value if isinstance(v, str) and v.strip())
    if isinstance(value, str):
        sep = "," if "," in value else None
        return tuple(w.strip() for w in value.split(sep) if w.strip())
    return ()


def one_line(value: str, limit: int, *, keep_end: bool = False) -> str:
    """``value`` safe to show on one line and to put in a prompt: control characters (and
    bidi and zero-width marks) become spaces, runs of white space one space, at most
    ``limit`` characters. ``keep_end``: a longer one loses its middle, not its end (where a
    refusal says what to do)."""
    flat = " ".join(_CONTROL.sub(" ", value).split())
    if len(flat) <= limit:
        return flat
    if not keep_end:
        return flat[: limit - 1].rstrip() + "…"
    head = limit // 3
    return flat[:head].rstrip() + " … " + flat[len(flat) - (limit - head - 3) :].lstrip()
