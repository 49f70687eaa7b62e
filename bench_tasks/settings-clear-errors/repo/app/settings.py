"""Settings: a JSON object with
- "name" (string, required)
- "port" (integer 1-65535, required)
- "debug" (boolean, optional, default false)
- "tags" (list of strings, optional, default [])
"""

import json
from dataclasses import dataclass, field


@dataclass
class Settings:
    name: str
    port: int
    debug: bool = False
    tags: list = field(default_factory=list)


def load_settings(path):
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return Settings(
        name=data["name"],
        port=int(data["port"]),
        debug=data.get("debug", False),
        tags=list(data.get("tags", [])),
    )
