"""Reading and writing config files: TOML in (size-capped, UTF-8, errors naming file, line and
key, never a secret), validation against the schema, the deep merge that layers files, and the
user file's atomic save (mode 0600 when it holds a credential; keys Larik does not own kept)."""

from __future__ import annotations

import difflib
import os
import re
import tempfile
import threading
import tomllib
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..llm.errors import ConfigError
from ..locations import MAX_CONFIG_BYTES, user_config_path
from .schema import Config

__all__ = ["MAX_CONFIG_BYTES", "save_user_config"]

_SECRET_KEYS = ("api_key", "headers")
#: A config file larger than this is refused unread (no config needs it; a huge value would
#: otherwise be parsed, validated and echoed in errors).
_FILE_LOCK = threading.Lock()


def _table(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            raise ConfigError(f"{path}: not a regular file")
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MiB; not a config file"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f":{m.group(1)}" if m else ""
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg).strip() or "syntax error"
        raise ConfigError(f"{path}{where}: invalid TOML: {reason}") from None


def _check_unknown_keys(data: Mapping[str, Any], path: Path) -> None:
    """Unknown top-level tables are kept for other parts of Larik, but a plain value there
    (``modle = "…"``) or a table named almost like one of ours (``[permission]``) is a typo."""
    fields = Config.model_fields
    tables = [k for k, f in fields.items() if f.default_factory is not None]
    for key, value in data.items():
        if key in fields:
            continue
        if isinstance(value, Mapping):
            near = difflib.get_close_matches(key, tables, n=1, cutoff=0.8)
        else:
            near = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6) or [""]
        if near:
            hint = f" (did you mean {near[0]!r}?)" if near[0] else ""
            raise ConfigError(f"{path}: {key}: unknown key{hint}")


#: pydantic's error types in Larik's words (``{name}``: from the error's context).
_WORDS = {
    "missing": "missing (it is required)",
    "extra_forbidden": "unknown key",
    "int_parsing": "should be a whole number",
    "int_type": "should be a whole number",
    "int_from_float": "should be a whole number",
    "float_parsing": "should be a number",
    "float_type": "should be a number",
    "bool_parsing": "should be true or false",
    "bool_type": "should be true or false",
    "string_type": "should be a string (in quotes)",
    "list_type": "should be a list ([…])",
    "dict_type": "should be a table",
    "model_type": "should be a table",
    "model_attributes_type": "should be a table",
    "greater_than": "should be more than {gt}",
    "greater_than_equal": "should be at least {ge}",
    "less_than": "should be less than {lt}",
    "less_than_equal": "should be at most {le}",
    "literal_error": "should be {expected}",
    "enum": "should be {expected}",
    "string_too_short": "should be at least {min_length} characters",
    "string_too_long": "should be at most {max_length} characters",
    "too_short": "should have at least {min_length} entries",
    "too_long": "should have at most {max_length} entries",
}


def first_error(
    e: ValidationError, skip: tuple[str, ...] = (), model: type[BaseModel] | None = None
) -> tuple[str, str]:
    """A validation error's first problem as ``(dotted key, message)``: the one line every
    config reader prints, in Larik's words (:data:`_WORDS`), with "did you mean" for an
    unknown key (the keys of ``model``'s table there) or a value that is nearly an allowed one
    (``skip``: path parts that name a container, not a key)."""
    err = e.errors()[0]
    loc = err["loc"]
    key = ".".join(str(p) for p in loc if p not in skip)
    kind = err["type"]
    words = _WORDS.get(kind)
    if words is None:
        return key, str(err["msg"]).removeprefix("Value error, ")
    try:
        context = {k: _plain(v) for k, v in (err.get("ctx") or {}).items()}
        msg = words.format(**context)
    except (KeyError, IndexError, ValueError):
        msg = str(err["msg"])
    choices: list[str] = []
    typed = ""
    if kind == "extra_forbidden" and model is not None and loc:
        choices, typed = _keys_at(model, loc[:-1]), str(loc[-1])
    elif kind in ("literal_error", "enum") and isinstance(err.get("input"), str):
        choices = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        typed = err["input"]
    near = difflib.get_close_matches(typed, choices, n=1, cutoff=0.6) if typed else []
    return key, msg + (f" (did you mean {near[0]!r}?)" if near else "")


def _plain(value: object) -> object:
    """600.0 as 600: a limit as the user would write it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _keys_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys of the table at ``loc`` in ``model``'s shape ([] when it is not a model's)."""
    import typing

    tp: Any = model
    for part in (*loc, None):
        while True:  # through Optional, dict[str, X] and list[X] to a model
            origin = typing.get_origin(tp)
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if origin in (typing.Union, types.UnionType) and args:
                tp = next(
                    (a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), args[0]
                )
            elif part is not None and origin in (dict, Mapping) and len(args) == 2:
                tp, part = args[1], None
                break
            elif part is not None and origin is list and args:
                tp, part = args[0], None
                break
            else:
                break
        if part is None:
            continue
        if not (isinstance(tp, type) and issubclass(tp, BaseModel)):
            return []
        field = tp.model_fields.get(str(part))
        if field is None:
            return []
        tp = field.annotation
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [f.alias or name for name, f in tp.model_fields.items()]
    return []


def _validate(data: dict[str, Any], path: Path) -> Config:
    _check_unknown_keys(data, path)
    try:
        return Config.model_validate(data)
    except RecursionError:
        raise ConfigError(f"{path}: a value is nested too deeply") from None
    except ValidationError as e:
        err = e.errors()[0]
        key, msg = first_error(e, model=Config)
        key = key or "(top level)"
        secret = any(s in key for s in _SECRET_KEYS)
        quiet = secret or err["type"] in ("value_error", "extra_forbidden", "missing")
        got = "" if quiet else _short(err.get("input"))
        words, hint, near = msg.partition(" (did you mean ")
        tail = f"{got[:-1]}; did you mean {near}" if got and hint else f"{got}{hint}{near}"
        raise ConfigError(f"{path}: {key}: {words}{tail}") from None


def _short(value: object) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    text = repr(value)
    return f" (got {text if len(text) <= 40 else text[:39] + '…'})"


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; any other value in ``top`` replaces. A ``None`` in ``top``
    deletes the key (used by saves)."""
    out = dict(base)
    for key, value in top.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value)
        elif isinstance(value, Mapping):
            out[key] = _deep_merge({}, value)
        else:
            out[key] = value
    return out


def save_user_config(updates: Mapping[str, Any]) -> Path:
    """Deep-merge ``updates`` into the user file and write it back.

    Keys not in ``updates`` are kept, including ones Larik does not know. A ``None`` (or, inside
    a table, an empty string) removes a key. The result is validated before anything is written;
    the write is atomic, and the file is mode 0600 when it holds an ``api_key`` or headers.
    What is not changed stays as the user wrote it — comments, order, layout (``tomlkit``
    edits the file's own document; ``/theme`` once rewrote it without its comments).
    """
    path = user_config_path()
    with _FILE_LOCK:
        current = _read_toml(path) if path.is_file() else {}
        merged = _prune(_deep_merge(current, updates))
        for key in updates:  # a table the update left empty is not written as an empty "[key]"
            if merged.get(key) == {}:
                del merged[key]
        _validate(merged, path)
        text = _edited(path.read_text(encoding="utf-8") if path.is_file() else "", merged)
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o600 if _holds_secret(merged) else _existing_mode(path)
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


def _edited(original: str, merged: dict[str, Any]) -> str:
    """``original`` (a TOML file's text) changed only where it differs from ``merged``."""
    import tomlkit

    doc = tomlkit.parse(original)
    _sync(doc, merged)
    text = tomlkit.dumps(doc)
    if tomllib.loads(text) != merged:  # never seen: then the values matter more than the layout
        text = tomlkit.dumps(merged)
    return text


def _sync(table: Any, want: Mapping[str, Any]) -> None:
    """Make tomlkit ``table`` hold ``want``: keys gone are removed, tables are edited in
    place, values that did not change are left alone (their comments with them)."""
    for key in [k for k in table if k not in want]:
        del table[key]
    for key, value in want.items():
        have = table.get(key)
        if isinstance(value, Mapping) and isinstance(have, Mapping):
            _sync(have, value)
        elif key not in table or _unwrapped(have) != value:
            table[key] = value


def _unwrapped(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def _prune(data: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """Drop empty strings inside tables (how a save unsets a role) and tables left empty
    below the top level."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _prune(value, depth + 1)
            if not value and depth > 0:
                continue
        elif value == "" and depth > 0:
            continue
        out[key] = value
    return out


def _holds_secret(data: Mapping[str, Any]) -> bool:
    providers = _table(data.get("providers"))
    servers = _table(_table(data.get("mcp")).get("servers"))  # MCP env and headers hold tokens
    return any(
        isinstance(p, Mapping) and (p.get("api_key") or p.get("headers"))
        for p in providers.values()
    ) or any(
        isinstance(s, Mapping) and (s.get("env") or s.get("headers")) for s in servers.values()
    )


def _existing_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
