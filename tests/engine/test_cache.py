"""nochmal/cache.py: the one cache type of the process-wide memos (bounded, least recently used
dropped first, counted, every registered cache cleared by one call)."""

from __future__ import annotations

import gc
import threading
import uuid

import pytest

from nochmal.cache import Cache, CacheStats, caches, clear_caches, memo


@pytest.fixture
def fresh():
    """Caches made by a test, under names no other test uses (a name is registered once)."""
    def make(name, *args, **kwargs):
        return Cache(f"test.{uuid.uuid4().hex}.{name}", *args, **kwargs)

    return make


def test_the_least_recently_used_entry_goes_first(fresh):
    cache = fresh("lru", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a used: b is now the oldest
    cache.put("c", 3)
    assert "b" not in cache and cache.peek("a") == 1 and cache.peek("c") == 3 and len(cache) == 2
    assert cache.peek("a") == 1 and cache.items() == [("a", 1), ("c", 3)]  # (a peek leaves the order)


def test_get_counts_hits_and_misses_peek_does_not_and_clear_resets(fresh):
    cache = fresh("stats", 4)
    cache.put(1, "x")
    assert cache.get(1) == "x" and cache.get(2) is None and cache.get(2, "d") == "d"
    cache.peek(1)
    cache.peek(2)
    assert cache.stats == CacheStats(hits=1, misses=2, entries=1)
    cache.clear()
    assert cache.stats == CacheStats(0, 0, 0) and not cache


def test_change_is_one_step_under_the_lock(fresh):
    cache = fresh("change", 8)

    def add(n):
        for _ in range(n):
            cache.change("k", lambda old: (old or 0) + 1)

    threads = [threading.Thread(target=add, args=(2000,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.peek("k") == 8000


def test_snapshot_and_update_put_the_entries_back_in_their_order(fresh):
    cache = fresh("snap", 3)
    for k in "abc":
        cache.put(k, k.upper())
    saved = cache.snapshot()
    cache.clear()
    cache.put("z", "Z")
    cache.update(saved)
    assert cache.items() == [("a", "A"), ("b", "B"), ("c", "C")]  # (z the oldest: dropped at the bound)
    cache.max_entries = 1
    cache.put("d", "D")
    assert cache.items() == [("d", "D")]


def test_weak_keys_go_with_their_key(fresh):
    class Key:
        pass

    cache = fresh("weak", None, weak_keys=True)
    kept, dropped = Key(), Key()
    cache.put(kept, 1)
    cache.put(dropped, 2)
    assert len(cache) == 2
    del dropped
    gc.collect()
    assert cache.items() == [(kept, 1)]


def test_clear_caches_clears_every_cache_of_a_prefix(fresh):
    one, two = fresh("one", 2), fresh("two", 2)
    one.put(1, 1)
    two.put(2, 2)
    prefix = one.name.removesuffix("one")
    assert caches(prefix) == {one.name: one}
    clear_caches(prefix)
    assert len(one) == 0 and len(two) == 1
    with pytest.raises(KeyError):  # (one name, one cache: a clear by name reaches it)
        Cache(two.name, 2)


def test_clear_caches_clears_the_memos_of_a_prefix_too():
    prefix = f"test.{uuid.uuid4().hex}."
    calls = []

    @memo(prefix + "square", 8)
    def square(x):
        calls.append(x)
        return x * x

    assert [square(3), square(3)] == [9, 9] and calls == [3]  # remembered
    clear_caches(prefix + "other")
    assert square(3) == 9 and calls == [3]  # another prefix: still remembered
    clear_caches(prefix)
    assert square(3) == 9 and calls == [3, 3]  # cleared: computed again
    with pytest.raises(KeyError):  # one name, one cache or memo
        memo(prefix + "square", 8)(abs)
    with pytest.raises(KeyError):
        Cache(prefix + "square", 8)


def test_the_missions_caches_are_registered():
    from nochmal.missions import split  # noqa: F401 (its modules register their caches)

    names = set(caches())
    assert {"board.layout_ids", "missions.measures.crosses.recent"} <= names
    assert {f"missions.split.{what}" for what in ("figures", "pieces", "separators", "moved", "states", "listings",
                                                   "fits", "last_splits")} <= names
