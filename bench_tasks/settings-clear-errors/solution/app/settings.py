"""Settings: a JSON object with
- "name" (string, required)
- "port" (integer 1-65535, required)
- "debug" (boolean, optional, default false)
- "tags" (list of strings, optional, default [])
"""

import json
from dataclasses import dataclass, field

from app.errors import SettingsError


@dataclass
class Settings:
    name: str
    port: int
    debug: bool = False
    tags: list = field(default_factory=list)


def load_settings(path):
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as e:
        raise SettingsError(f"{path}: line {e.lineno}: invalid JSON: {e.msg}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: settings must be a JSON object")

    def bad(key, why):
        return SettingsError(f"{path}: {key}: {why}")

    for key in ("name", "port"):
        if key not in data:
            raise bad(key, "missing")
    name, port = data["name"], data["port"]
    if not isinstance(name, str):
        raise bad("name", "must be a string")
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise bad("port", "must be an integer from 1 to 65535")
    debug = data.get("debug", False)
    if not isinstance(debug, bool):
        raise bad("debug", "must be true or false")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise bad("tags", "must be a list of strings")
    return Settings(name=name, port=port, debug=debug, tags=list(tags))
