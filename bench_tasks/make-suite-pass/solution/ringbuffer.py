"""A fixed-capacity ring buffer."""


class RingBuffer:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items = [None] * capacity
        self._start = 0
        self._size = 0

    def __len__(self):
        return self._size

    def push(self, item):
        """Append an item; when full, the oldest item is overwritten."""
        end = (self._start + self._size) % self.capacity
        self._items[end] = item
        if self._size == self.capacity:
            self._start = (self._start + 1) % self.capacity
        else:
            self._size += 1

    def pop(self):
        """Remove and return the oldest item. IndexError when empty."""
        if not self._size:
            raise IndexError("pop from an empty buffer")
        item = self._items[self._start]
        self._items[self._start] = None
        self._start = (self._start + 1) % self.capacity
        self._size -= 1
        return item

    def peek(self):
        if not self._size:
            raise IndexError("peek from an empty buffer")
        return self._items[self._start]

    def __iter__(self):
        for i in range(self._size):
            yield self._items[(self._start + i) % self.capacity]

    def to_list(self):
        return list(self)
