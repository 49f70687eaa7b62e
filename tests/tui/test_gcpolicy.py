"""larik/tui/gcpolicy.py: what is loaded to stay is frozen out of the collector's sight, and the
idle collection gives it back, collects the garbage among it and freezes the survivors again.
(The other tests run a young stand-in for the idle collection: tests/conftest.py.)"""

from __future__ import annotations

import gc
import weakref

import pytest

from larik.tui import gcpolicy


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def _frozen(obj: object) -> bool:
    return not any(o is obj for o in gc.get_objects())


@pytest.mark.full_gc
def test_the_idle_collection_frees_frozen_garbage_and_freezes_the_survivors_again():
    gc.unfreeze()
    garbage, kept = _Node(), _Node()
    gone = weakref.ref(garbage)
    gcpolicy.freeze_loaded()
    assert _frozen(kept)
    del garbage
    gc.collect()
    assert gone() is not None, "a full collection walked the frozen objects"
    gcpolicy.collect_idle()
    assert gone() is None
    assert _frozen(kept)
