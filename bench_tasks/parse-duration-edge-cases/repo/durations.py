"""Human durations."""

import re

_PATTERN = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?$")


def parse_duration(text):
    """Parse "1h30m" into seconds."""
    m = _PATTERN.match(text)
    if not m or not any(m.groups()):
        raise ValueError(f"not a duration: {text!r}")
    hours, minutes = (int(g) if g else 0 for g in m.groups())
    return hours * 3600 + minutes * 60


def format_duration(seconds):
    """Format seconds as "1h2m3s" (zero parts left out; 0 -> "0s")."""
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n}{unit}")
    return "".join(parts) or "0s"
