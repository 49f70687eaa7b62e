"""Sets of half-open integer intervals [start, end)."""


class IntervalSet:
    """A set of integers stored as sorted, merged, non-empty half-open intervals."""

    def __init__(self, intervals=()):
        """Build from (start, end) pairs; empty pairs (start >= end) are ignored."""
        raise NotImplementedError

    def add(self, start, end):
        """Add [start, end). Touching or overlapping intervals merge: [1,3) + [3,5) -> [1,5)."""
        raise NotImplementedError

    def remove(self, start, end):
        """Remove [start, end), splitting intervals when needed."""
        raise NotImplementedError

    def __contains__(self, x):
        """Whether the integer x is in the set."""
        raise NotImplementedError

    def intervals(self):
        """The intervals as a list of (start, end) tuples, sorted."""
        raise NotImplementedError

    def total(self):
        """How many integers the set holds."""
        raise NotImplementedError
