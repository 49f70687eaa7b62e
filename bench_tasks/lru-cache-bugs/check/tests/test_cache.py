from cache import LRUCache


def test_get_and_put():
    c = LRUCache(2)
    c.put("a", 1)
    assert c.get("a") == 1
    assert c.get("zz", 5) == 5
    assert c.stats() == {"size": 1, "hits": 1, "misses": 1}


def test_never_exceeds_capacity():
    c = LRUCache(3)
    for i in range(10):
        c.put(i, i)
        assert len(c) <= 3


def test_get_refreshes_recency():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.get("a")
    c.put("c", 3)
    assert "a" in c and "c" in c and "b" not in c


def test_put_of_existing_key_refreshes_and_does_not_evict():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("a", 10)
    assert len(c) == 2
    c.put("c", 3)
    assert c.get("a") == 10 and "b" not in c


def test_stats_after_evictions():
    c = LRUCache(1)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") is None and c.get("b") == 2
    assert c.stats() == {"size": 1, "hits": 1, "misses": 1}
