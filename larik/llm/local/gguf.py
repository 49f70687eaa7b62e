"""What a GGUF file says about itself: its header's key/value metadata, read without loading it.

``read_meta(path)`` checks the magic and version and returns the metadata (arrays are skipped,
strings kept); a file that is not a GGUF, or is cut short in its header, is a one-line
:class:`~larik.llm.errors.LocalModelError` naming the file. The engine uses the metadata to fit
the context window to memory (:func:`kv_bytes_per_token`) and to know the model's size.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import LocalModelError

__all__ = ["Meta", "kv_bytes_per_token", "read_meta"]

Meta = dict[str, Any]

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q"}
_SCALARS |= {11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_KEYS = 100_000


class _Short(Exception):
    pass


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _Short
    return data


def _scalar(f: BinaryIO, kind: int) -> Any:
    fmt = _SCALARS[kind]
    return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]


def _string(f: BinaryIO) -> str:
    (n,) = struct.unpack("<Q", _read(f, 8))
    if n > 1 << 26:
        raise _Short
    return _read(f, n).decode("utf-8", "replace")


def _value(f: BinaryIO, kind: int) -> Any:
    if kind == _STRING:
        return _string(f)
    if kind == _ARRAY:
        (inner,) = struct.unpack("<I", _read(f, 4))
        (count,) = struct.unpack("<Q", _read(f, 8))
        if inner == _STRING:
            for _ in range(count):  # skipped: the tokenizer's vocabulary
                (n,) = struct.unpack("<Q", _read(f, 8))
                f.seek(n, 1)
        elif inner in _SCALARS:
            f.seek(count * struct.calcsize(_SCALARS[inner]), 1)
        else:
            raise _Short
        return None
    if kind not in _SCALARS:
        raise _Short
    return _scalar(f, kind)


def read_meta(path: Path) -> Meta:
    """The metadata of the GGUF at ``path`` (LocalModelError when it is not one)."""
    try:
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise LocalModelError(f"{path} is not a GGUF model file")
            version, _tensors, count = struct.unpack("<IQQ", _read(f, 20))
            if version not in (2, 3) or count > _MAX_KEYS:
                raise LocalModelError(f"{path}: GGUF version {version} is not one Larik reads")
            meta: Meta = {}
            for _ in range(count):
                key = _string(f)
                (kind,) = struct.unpack("<I", _read(f, 4))
                value = _value(f, kind)
                if value is not None:
                    meta[key] = value
            size = f.seek(0, 2)
    except _Short:
        raise LocalModelError(f"{path} is cut short: not a whole GGUF model file") from None
    except OSError as e:
        raise LocalModelError(f"cannot read {path}: {e.strerror or e}") from None
    meta["file.size"] = size
    return meta


def kv_bytes_per_token(meta: Meta) -> int:
    """The KV cache's bytes per token of context (f16 keys and values); 0 when unknown."""
    arch = meta.get("general.architecture", "")
    layers = meta.get(f"{arch}.block_count")
    heads = meta.get(f"{arch}.attention.head_count")
    kv_heads = meta.get(f"{arch}.attention.head_count_kv", heads)
    width = meta.get(f"{arch}.embedding_length")
    values = (layers, heads, kv_heads, width)
    if not all(isinstance(v, int) and v > 0 for v in values):
        return 0
    n_layers, n_heads, n_kv, n_width = (int(v) for v in values)  # type: ignore[arg-type]
    return 2 * n_layers * n_kv * (n_width // n_heads) * 2
