"""Sets of half-open integer intervals [start, end)."""

import bisect


class IntervalSet:
    """A set of integers stored as sorted, merged, non-empty half-open intervals."""

    def __init__(self, intervals=()):
        self._ivs = []
        for a, b in intervals:
            self.add(a, b)

    def add(self, start, end):
        if start >= end:
            return
        out = []
        for a, b in self._ivs:
            if b < start or a > end:
                out.append((a, b))
            else:
                start, end = min(a, start), max(b, end)
        bisect.insort(out, (start, end))
        self._ivs = out

    def remove(self, start, end):
        if start >= end:
            return
        out = []
        for a, b in self._ivs:
            if b <= start or a >= end:
                out.append((a, b))
                continue
            if a < start:
                out.append((a, start))
            if b > end:
                out.append((end, b))
        self._ivs = out

    def __contains__(self, x):
        return any(a <= x < b for a, b in self._ivs)

    def intervals(self):
        return list(self._ivs)

    def total(self):
        return sum(b - a for a, b in self._ivs)
