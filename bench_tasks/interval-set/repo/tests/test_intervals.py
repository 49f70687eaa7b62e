from intervals import IntervalSet


def test_add_merges_overlapping_and_touching():
    s = IntervalSet()
    s.add(1, 3)
    s.add(3, 5)
    s.add(10, 12)
    s.add(4, 11)
    assert s.intervals() == [(1, 12)]


def test_remove_splits():
    s = IntervalSet([(0, 10)])
    s.remove(3, 5)
    assert s.intervals() == [(0, 3), (5, 10)]
    assert 2 in s and 3 not in s and 5 in s and 10 not in s


def test_total():
    assert IntervalSet([(0, 3), (10, 12), (5, 5)]).total() == 5
