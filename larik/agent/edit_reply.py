"""The edit workflow's reply formats: how a small model is asked to write an edit, and the parser.

Two formats, after aider's edit formats (its ``whole`` and ``diff`` coders):

* **whole** — the file's path on a line of its own, then the complete new file in a fenced
  block. The easiest for a small model on a small file: nothing to copy exactly.
* **diff** — the path, then search/replace blocks (``<<<<<<< SEARCH`` / ``=======`` /
  ``>>>>>>> REPLACE``), for a file too long to write out in one reply.

:func:`parse_reply` reads either (both may appear in one reply) and is lenient where a small
model drifts — the path as ``**x.py**``, ``` `x.py` ```, ``# x.py`` or ``x.py:``, or on the
fence itself (```` ```python x.py ````); no path at all when the request is about one file — and
strict where a guess could damage a file: a block whose fence never closes (a reply cut off at
the output limit, or one the model abandoned) is never applied, and neither is a whole file
with an elision comment ("... rest of the code unchanged") or a search/replace block missing a
marker. Each such block is a :class:`Problem` the model is told about. Nothing here reads or
writes a file: :mod:`.edit_turn` applies what is parsed, through the tool runner.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "EXAMPLE",
    "FORMATS",
    "FileEdit",
    "Parsed",
    "Problem",
    "format_rules",
    "parse_reply",
]

Format = Literal["whole", "diff"]
FORMATS: tuple[Format, ...] = ("whole", "diff")

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*(\S*)\s*$")
_SEARCH = re.compile(r"^\s*<{5,9}\s*SEARCH\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9}\s*REPLACE\s*$")
#: a path-looking token: no spaces, a dot or a slash in it, no quotes or brackets
_PATH = re.compile(r"^[\w.\-/\\]+\.[\w]+$|^[\w.\-]+(?:/[\w.\-]+)+$")
#: a word alone on its line that is a path, if an odd one (``~/pwn.txt``, ``/etc/x``,
#: ``$HOME/x``, ``C:\x``, ``a@b.py``): the header of the block after it all the same, so that
#: block is refused for it (:func:`.edit_files.place`), never taken for the request's own file
_ODD_PATH = re.compile(r"^(?:[~$%/\\]|[A-Za-z]:)\S*$|^\S*[/\\]\S*$|^\S+\.\w+$")
_PATH_DECOR = re.compile(r"^(?:#+|//|--|>|\*+|-)?\s*(?:file(?:name)?\s*:\s*)?", re.IGNORECASE)
#: a comment that stands for lines the model left out of a "whole" file
_ELISION = re.compile(
    r"^\s*(?:#|//|/\*|<!--)\s*(?:\.\.\.|…|\(?(?:the )?(?:rest|remaining|existing|other|previous)"
    r"\b.*\b(?:unchanged|same|here|as before|omitted|code|methods|functions)\b)",
    re.IGNORECASE,
)
_LANGS = {
    "python",
    "py",
    "python3",
    "text",
    "txt",
    "toml",
    "json",
    "yaml",
    "yml",
    "ini",
    "cfg",
    "markdown",
    "md",
    "bash",
    "sh",
    "shell",
    "javascript",
    "js",
    "typescript",
    "ts",
    "diff",
    "csv",
    "html",
    "css",
    "rust",
    "go",
    "c",
    "cpp",
    "java",
}


@dataclass
class FileEdit:
    """What the reply says to do to one file: its whole new text, or search/replace pairs."""

    path: str
    whole: str | None = None
    blocks: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Problem:
    """A part of the reply that is not applied, and why (said to the model as is)."""

    path: str  # "" when the part names no file
    why: str


@dataclass
class Parsed:
    edits: list[FileEdit] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.edits and not self.problems


#: the example in the instructions: a concrete one (a tiny model copies a placeholder such as
#: "the whole file here" into the file), and a reply that repeats it is refused (:data:`EXAMPLE`)
_EXAMPLE_REQUEST = 'make greet() say "hello" instead of "hi"'
_WHOLE_EXAMPLE = 'def greet(name):\n    return "hello " + name\n'
_DIFF_EXAMPLE = (
    '<<<<<<< SEARCH\n    return "hi " + name\n=======\n    return "hello " + name\n'
    ">>>>>>> REPLACE\n"
)
EXAMPLE = frozenset({_WHOLE_EXAMPLE.strip(), 'return "hello " + name'})


def format_rules(fmt: Format) -> str:
    """The instructions for ``fmt``. No example reply: a 0.5B model copied a placeholder
    ("the whole file, every line of it") into the file, and then a concrete example's sentence
    as its whole answer (a reply that repeats :data:`EXAMPLE` is still refused)."""
    if fmt == "whole":
        return (
            "How to reply: for each file you change, write its path alone on a line, then a "
            "fenced code block (```python) holding the file's COMPLETE new content.\n\n"
            "Rules:\n"
            '- Write the entire file: never leave lines out, never write "..." or '
            '"rest of the code unchanged".\n'
            "- Only give the files you change. A new file is given the same way.\n"
            "- Start with one short sentence saying what you change, then the file(s)."
        )
    return (
        "How to reply: for each file you change, write its path alone on a line, then a "
        "fenced code block holding search/replace blocks: a line <<<<<<< SEARCH, the exact "
        "lines of the file to change, a line =======, the lines to put in their place, a line "
        ">>>>>>> REPLACE.\n\n"
        "Rules:\n"
        "- The SEARCH part must be copied exactly from the file, a few whole lines, enough "
        "to be unique.\n"
        "- Use several small blocks rather than one big one. An empty SEARCH part creates a "
        "new file.\n"
        "- Start with one short sentence saying what you change, then the blocks."
    )


def parse_reply(
    text: str,
    default_path: str = "",
    known: Collection[str] = (),
    texts: Mapping[str, str] | None = None,
) -> Parsed:
    """The edits in a reply. ``default_path``: the file a block without a path is taken to be
    (the request is about that one file); "" when there is no such file. ``known``: the files
    the model was shown: a sentence before a block that names exactly one of them ("Here is
    the fixed `stats.py`:") gives the block its path. ``texts``: their text now, where an edit
    said in words that names no file finds the one file that has the text it changes."""
    out = Parsed()
    lines = text.splitlines(keepends=True)
    i = 0
    last_path = ""  # a path line seen since the last block
    prose: list[str] = []  # the lines of words since the last block
    was: _Whole | None = None  # the block before, a whole file, and the words before it
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence is None:
            if _SEARCH.match(line):  # search/replace blocks outside a fence (aider accepts them)
                i = _bare_blocks(lines, i, last_path or default_path, out)
                was = None
                continue
            candidate = _path_in(line) or _mentioned(line, known)
            if candidate:
                last_path = candidate
            if line.strip():
                prose.append(line.strip())
            i += 1
            continue
        ticks, info, extra = fence.group(1), fence.group(2), fence.group(3)
        end = _closing(lines, i + 1, ticks)
        body = lines[i + 1 : end if end is not None else len(lines)]
        path = _fence_path(info, extra) or last_path
        if not path and body and (inside := _path_in(body[0], comment_only=True)):
            path, body = inside, body[1:]
        words, prose = prose, []
        if end is not None and was is not None and not path and _from_to(was.words, words):
            # "change it from: ```A``` to: ```B```": a search/replace, not two whole files
            e = _add(out, was.path)
            e.whole = was.whole_before
            e.blocks.append((was.content, "".join(body)))
            i, was, last_path = end + 1, None, ""
            continue
        was = None
        path = path or default_path
        last_path = ""
        if end is None:
            out.problems.append(
                Problem(
                    path,
                    "the code block never ends (no closing ```): the reply was cut off or "
                    "unfinished, so nothing of it was applied",
                )
            )
            break
        i = end + 1
        content = "".join(body)
        if any(_SEARCH.match(b) for b in body):
            _blocks(body, path, out)
            continue
        if not path:
            out.problems.append(
                Problem("", "a code block with no file path on the line above it: not applied")
            )
            continue
        if any(_ELISION.match(b) for b in body):
            out.problems.append(
                Problem(
                    path,
                    "the file leaves lines out (a comment stands for them): write the whole "
                    "file, every line, or use search/replace blocks",
                )
            )
            continue
        if content.strip() in EXAMPLE:
            out.problems.append(
                Problem(path, "that is the example from the instructions, not this project")
            )
            continue
        e = _add(out, path)
        was = _Whole(path, content, words, e.whole)
        e.whole = content
    if not out.edits and not out.problems and not any(_FENCE.match(x) for x in lines):
        _said(text, default_path, known, texts or {}, out)
    return out


@dataclass(frozen=True)
class _Whole:
    """A whole-file block as parsed, which the next block may make the first half of a
    search/replace said in words."""

    path: str
    content: str
    words: list[str]  # the lines of words before it
    whole_before: str | None  # the file's whole text before this block set it


#: the words before the first of two blocks that say an edit: "Line 15 of textutils.py
#: should be changed from:", "Replace this line:", and between them: "to:", "with this:"
_FROM = re.compile(r"\b(?:chang|replac)\w*\b|\bfrom\s*:?\s*$", re.I)
_TO = re.compile(
    r"^(?:to|with|into|by)(?:\s+(?:this|these|that|it|the following(?: lines?| code)?))?\s*:?$",
    re.I,
)


def _from_to(before: list[str], between: list[str]) -> bool:
    """Whether two blocks are the text to change and what it becomes (the 1.5B model, asked
    for the whole file: "The line 15 of textutils.py should be changed from: ```…``` to:
    ```…```"), by the words before and between them."""
    return (
        bool(before and between)
        and bool(_FROM.search(before[-1]))
        and all(_TO.match(x) for x in between)
    )


#: an edit said in a sentence: "Change `shop/inventory.py` line 16 from `for item in
#: in_stock(items)[1:]` to `for item in in_stock(items)`." (the 1.5B model, twice running,
#: asked for the whole file), "replace `a - b` with `a + b` in calc.py"
_SAID = re.compile(
    r"\b(?:change|replace)\b[^`\n]*(?:`[^`\n]*`[^`\n]*?)??"
    r"(?:\bfrom\s+)?`(?P<old>[^`\n]+)`\s+(?:to|with|into|by)\s+`(?P<new>[^`\n]+)`",
    re.I,
)


def _said(
    text: str, default_path: str, known: Collection[str], texts: Mapping[str, str], out: Parsed
) -> None:
    """The edits a reply with no code block says in words, each a search/replace of the text
    in its first backticks by that in its second, in the file the sentence names, else the
    request's one file, else the one file of ``texts`` that has that text."""
    for line in text.splitlines():
        for m in _SAID.finditer(line):
            old, new = m.group("old"), m.group("new")
            if old == new or old in known or new in known:
                continue
            if new.endswith(":") != old.endswith(":"):  # a line's header, with or without ':'
                new = new + ":" if old.endswith(":") else new[:-1]
            path = _mentioned(line, known) or default_path
            if not path:
                having = [p for p, t in texts.items() if old in t]
                path = having[0] if len(having) == 1 else ""
            if path:
                _add(out, path).blocks.append((old, new))


def _add(out: Parsed, path: str) -> FileEdit:
    for e in out.edits:
        if e.path == path:
            return e
    e = FileEdit(path)
    out.edits.append(e)
    return e


def _closing(lines: list[str], start: int, ticks: str) -> int | None:
    for j in range(start, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {ticks[0]} and len(stripped) >= len(ticks):
            return j
    return None


def _blocks(body: list[str], path: str, out: Parsed) -> None:
    """Search/replace blocks inside one fenced block."""
    i = 0
    while i < len(body):
        if _SEARCH.match(body[i]):
            i = _one_block(body, i, path, out)
        else:
            i += 1


def _bare_blocks(lines: list[str], i: int, path: str, out: Parsed) -> int:
    return _one_block(lines, i, path, out)


def _one_block(lines: list[str], i: int, path: str, out: Parsed) -> int:
    """The block starting at ``lines[i]`` (a SEARCH marker); returns the line after it."""
    search: list[str] = []
    replace: list[str] = []
    j = i + 1
    while j < len(lines) and not _DIVIDER.match(lines[j]):
        if _SEARCH.match(lines[j]) or _REPLACE.match(lines[j]):
            break
        search.append(lines[j])
        j += 1
    if j >= len(lines) or not _DIVIDER.match(lines[j]):
        out.problems.append(Problem(path, "a search/replace block without its ======= line"))
        return j
    j += 1
    while j < len(lines) and not _REPLACE.match(lines[j]):
        if _SEARCH.match(lines[j]) or _DIVIDER.match(lines[j]):
            break
        replace.append(lines[j])
        j += 1
    if j >= len(lines) or not _REPLACE.match(lines[j]):
        out.problems.append(
            Problem(path, "a search/replace block without its >>>>>>> REPLACE line: not applied")
        )
        return j
    if not path:
        out.problems.append(Problem("", "a search/replace block with no file path above it"))
        return j + 1
    _add(out, path).blocks.append(("".join(search), "".join(replace)))
    return j + 1


def _path_in(line: str, comment_only: bool = False) -> str:
    """The path a line names on its own ("" when it is not such a line); an odd one too
    (:data:`_ODD_PATH`), which the harness then refuses to place."""
    text = line.strip()
    if not text:
        return ""
    if comment_only and not text.startswith(("#", "//", "--")):
        return ""
    text = _PATH_DECOR.sub("", text).strip()
    text = text.strip("*`'\"").rstrip(":").strip("*`'\"").strip()
    if len(text) <= 200 and _PATH.match(text) and not text.endswith("."):
        return text
    return text if _ODD_PATH.match(text) else ""


def _mentioned(line: str, known: Collection[str]) -> str:
    """The one file of ``known`` a sentence names, by its path or else by its name alone
    ("" for none, or for more than one: ``__init__.py`` of two packages names neither)."""
    junk = "`*'\"()[],:;!?"
    words = {w.strip(junk).rstrip(".").strip(junk) for w in line.split()}
    named = [k for k in known if k in words]
    if not named:  # "the updated `inventory.py`" for shop/inventory.py: its name, if only it
        named = [k for k in known if "/" in k and k.rpartition("/")[2] in words]
    return named[0] if len(named) == 1 else ""


def _fence_path(info: str, extra: str) -> str:
    """A path on the fence line itself: ```` ```python x.py ```` or ```` ```x.py ````."""
    for token in (extra, info):
        if token and token.lower() not in _LANGS and (_PATH.match(token) or _ODD_PATH.match(token)):
            return token
    return ""
