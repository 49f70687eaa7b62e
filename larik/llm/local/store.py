"""The models Larik can run itself: an index in ``<state>/local/models.json``.

Each entry is a name (what ``local/NAME`` says) and where its file is: in the Hugging Face cache
for a model pulled from the Hub (``HF_HOME`` decides where that is), or under
``<state>/local/models/`` for one pulled from a file on this machine (a hard link where the
file system allows it, else a copy). The index is rewritten whole (a temporary file renamed
over it), so a reader never sees half of it. Nothing here downloads anything.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import jsontext
from ..errors import LocalModelError

__all__ = ["Entry", "Store", "name_for"]

INDEX = "models.json"


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    path: str  # the GGUF file
    size: int
    sha256: str
    source: str  # "hub" (in the Hugging Face cache) or "file" (under <state>/local/models)
    repo: str = ""
    file: str = ""
    revision: str = ""

    @property
    def spec(self) -> str:
        return f"local/{self.name}"


def name_for(file: str) -> str:
    """A model name from a file name: ``Qwen2.5-Coder-7B.Q4_K_M.gguf`` -> ``qwen2.5-coder-7b.q4_k_m``."""
    stem = Path(file).name.removesuffix(".gguf")
    return re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-.") or "model"


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root  # <state>/local

    @property
    def files_dir(self) -> Path:
        return self.root / "models"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def run_dir(self) -> Path:
        return self.root / "run"

    def entries(self) -> list[Entry]:
        """Every pulled model whose file is still there, in the order they were pulled."""
        return [e for e in self._read() if Path(e.path).is_file()]

    def get(self, name: str) -> Entry | None:
        return next((e for e in self.entries() if e.name == name), None)

    def default(self) -> Entry | None:
        """The one pulled last (None: none pulled): the last source of the rule plain
        ``larik`` starts on (``routing.targets.default_model``)."""
        entries = self.entries()
        return entries[-1] if entries else None

    def find(self, name: str) -> Entry:
        """The entry called ``name``; LocalModelError naming the pulled ones and the fix."""
        entry = self.get(name)
        if entry is not None:
            return entry
        have = ", ".join(e.name for e in self.entries()) or "none yet"
        raise LocalModelError(
            f"no local model {name!r} (pulled: {have}): run `larik local pull {name}`"
        )

    def add(self, entry: Entry) -> None:
        rest = [e for e in self._read() if e.name != entry.name]
        self._write([*rest, entry])

    def remove(self, name: str) -> Entry:
        """Forget ``name`` and delete its file (LocalModelError when there is no such model)."""
        entries = self._read()
        entry = next((e for e in entries if e.name == name), None)
        if entry is None:
            self.find(name)  # raises, naming the pulled ones
            raise AssertionError  # unreachable
        _delete_file(Path(entry.path), hub=entry.source == "hub")
        self._write([e for e in entries if e.name != name])
        return entry

    def _read(self) -> list[Entry]:
        try:
            data = json.loads((self.root / INDEX).read_text())
        except FileNotFoundError:
            return []
        except (OSError, ValueError, RecursionError) as e:
            raise LocalModelError(f"{self.root / INDEX} cannot be read: {e}") from None
        fields = set(Entry.__dataclass_fields__)
        out = []
        models = data.get("models") if isinstance(data, dict) else None
        for item in models if isinstance(models, list) else []:
            if not isinstance(item, dict) or not {"name", "path"} <= set(item):
                continue
            kept = {k: v for k, v in item.items() if k in fields}
            if all(isinstance(kept.get(k, ""), str) for k in fields - {"size"}) and isinstance(
                kept.get("size", 0), int
            ):
                kept.setdefault("size", 0)
                kept.setdefault("sha256", "")
                kept.setdefault("source", "file")
                out.append(Entry(**kept))
        return out

    def _write(self, entries: list[Entry]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        text = jsontext.dumps({"models": [asdict(e) for e in entries]}, indent=2) + "\n"
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".models-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, self.root / INDEX)


def _delete_file(path: Path, *, hub: bool) -> None:
    """The file, and for a Hub download the cache blob its snapshot link points to."""
    blob = path.resolve() if hub and path.is_symlink() else None
    path.unlink(missing_ok=True)
    if blob is not None and blob.parent.name == "blobs":
        blob.unlink(missing_ok=True)
