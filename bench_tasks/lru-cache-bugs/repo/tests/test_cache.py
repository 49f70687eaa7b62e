from cache import LRUCache


def test_get_and_put():
    c = LRUCache(2)
    c.put("a", 1)
    assert c.get("a") == 1
    assert c.get("zz", 5) == 5
    assert c.stats() == {"size": 1, "hits": 1, "misses": 1}
