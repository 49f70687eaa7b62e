"""Human durations."""

import re

_PATTERN = re.compile(r"^(?:(\d+)d)?\s*(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:(\d+)s)?$")


def parse_duration(text):
    """Parse "1d 2h30m5s" (or a bare number of seconds) into seconds."""
    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    m = _PATTERN.match(stripped)
    if not stripped or not m or not any(m.groups()):
        raise ValueError(f"not a duration: {text!r}")
    d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    return d * 86400 + h * 3600 + mi * 60 + s


def format_duration(seconds):
    """Format seconds as "1h2m3s" (zero parts left out; 0 -> "0s")."""
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n}{unit}")
    return "".join(parts) or "0s"
