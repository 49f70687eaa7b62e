import random

from intervals import IntervalSet


def test_unsorted_constructor_and_empty_pairs():
    s = IntervalSet([(8, 9), (1, 2), (4, 4), (2, 3), (7, 6)])
    assert s.intervals() == [(1, 3), (8, 9)]


def test_remove_across_several_and_at_edges():
    s = IntervalSet([(0, 2), (4, 6), (8, 10)])
    s.remove(1, 9)
    assert s.intervals() == [(0, 1), (9, 10)]
    s.remove(-5, 0)
    s.remove(10, 20)
    assert s.intervals() == [(0, 1), (9, 10)]
    s.remove(0, 100)
    assert s.intervals() == [] and s.total() == 0


def test_against_a_python_set():
    rng = random.Random(7)
    s, ref = IntervalSet(), set()
    for _ in range(400):
        a = rng.randrange(-20, 60)
        b = a + rng.randrange(0, 15)
        if rng.random() < 0.6:
            s.add(a, b)
            ref |= set(range(a, b))
        else:
            s.remove(a, b)
            ref -= set(range(a, b))
        assert s.total() == len(ref)
    assert all((x in s) == (x in ref) for x in range(-30, 80))
    ivs = s.intervals()
    assert all(a < b for a, b in ivs)
    assert all(ivs[i][1] < ivs[i + 1][0] for i in range(len(ivs) - 1))
