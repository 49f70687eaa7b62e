import pytest

from ringbuffer import RingBuffer


def test_push_and_pop_in_order():
    rb = RingBuffer(3)
    for x in (1, 2, 3):
        rb.push(x)
    assert [rb.pop(), rb.pop(), rb.pop()] == [1, 2, 3]


def test_overwrite_oldest_when_full():
    rb = RingBuffer(3)
    for x in range(5):
        rb.push(x)
    assert rb.to_list() == [2, 3, 4]
    assert len(rb) == 3


def test_pop_empty_raises_index_error():
    rb = RingBuffer(2)
    with pytest.raises(IndexError):
        rb.pop()
    assert len(rb) == 0


def test_wraps_around_after_pops():
    rb = RingBuffer(3)
    for x in (1, 2, 3):
        rb.push(x)
    rb.pop()
    rb.push(4)
    assert rb.to_list() == [2, 3, 4]


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        RingBuffer(0)


def test_peek_returns_the_oldest_without_removing_it():
    rb = RingBuffer(3)
    rb.push("a")
    rb.push("b")
    assert rb.peek() == "a"
    assert len(rb) == 2
