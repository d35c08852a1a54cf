"""One owned cache type for the process-wide memos (the board's layout ids, the missions'
figures per sheet state): bounded, thread-safe, counted, and every one of them cleared by a
single call (:func:`clear_caches`) where a benchmark or a test needs a cold start. A pure
function on a hot path keeps functools' C-speed memo instead (:func:`memo`), registered by
name all the same, so that the one call clears it too.

A cache forgets its least recently used entries beyond ``max_entries``; values are never
changed in place (a change replaces the value under the cache's lock: :meth:`Cache.change`),
so what a reader got stays valid while other threads write.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable

_MISSING = object()


@dataclass(frozen=True)
class CacheStats:
    """What :meth:`Cache.get` found since the cache was made or last cleared."""
    hits: int
    misses: int
    entries: int


class Cache:
    """A map of at most ``max_entries`` entries (None: unbounded, for ``weak_keys`` caches whose
    entries go with their keys), the least recently used dropped first; registered under
    ``name`` (unique; "layer.module.what") for :func:`caches` and :func:`clear_caches`."""

    def __init__(self, name: str, max_entries: int | None, *, weak_keys: bool = False) -> None:
        if name in _REGISTRY or name in _MEMOS:
            raise KeyError(f"a cache named {name!r} exists already")
        self.name = name
        self.max_entries = max_entries
        self._weak = weak_keys
        self._store: Any = weakref.WeakKeyDictionary() if weak_keys else OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = 0
        _REGISTRY[name] = self

    # --- reading ---------------------------------------------------------------------------
    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value of ``key`` (now the most recently used), else ``default``; counted in :attr:`stats`."""
        with self._lock:
            value = self._store.get(key, _MISSING)
            if value is _MISSING:
                self._misses += 1
                return default
            self._hits += 1
            self._touch(key, value)
            return value

    def peek(self, key: Hashable, default: Any = None) -> Any:
        """The value of ``key`` else ``default``, leaving its recency and the counts alone (a
        look a caller makes on the side, not a use)."""
        with self._lock:
            return self._store.get(key, default)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._store

    def __len__(self) -> int:
        with self._lock:
            return len(self._store)

    def items(self) -> list[tuple[Any, Any]]:
        """The entries, least recently used first (a copy: iterate it without the lock)."""
        with self._lock:
            return list(self._store.items())

    def snapshot(self) -> dict:
        """The entries as a dict, oldest first (for :meth:`update` after a cold run)."""
        return dict(self.items())

    @property
    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._store))

    # --- writing ---------------------------------------------------------------------------
    def put(self, key: Hashable, value: Any) -> None:
        """Remember ``value`` for ``key`` as the most recently used; drop the oldest beyond the bound."""
        with self._lock:
            self._touch(key, value)
            self._trim()

    def change(self, key: Hashable, change: Callable[[Any], Any]) -> Any:
        """Replace the value of ``key`` by ``change(old)`` (old: None when absent) in one step
        under the lock, as the most recently used; returns the new value."""
        with self._lock:
            value = change(self._store.get(key))
            self._touch(key, value)
            self._trim()
            return value

    def update(self, entries: dict | Iterable[tuple[Any, Any]]) -> None:
        """:meth:`put` every entry, in order (a :meth:`snapshot` puts its recency back)."""
        pairs = entries.items() if isinstance(entries, dict) else entries
        with self._lock:
            for key, value in pairs:
                self._touch(key, value)
            self._trim()

    def clear(self) -> None:
        """Forget every entry and reset the counts."""
        with self._lock:
            self._store.clear()
            self._hits = self._misses = 0

    def _touch(self, key: Hashable, value: Any) -> None:
        if self._weak:  # (a WeakKeyDictionary keeps insertion order: re-insert to move it last)
            self._store.pop(key, None)
            self._store[key] = value
        else:
            self._store[key] = value
            self._store.move_to_end(key)

    def _trim(self) -> None:
        if self.max_entries is None:
            return
        while len(self._store) > self.max_entries:
            if self._weak:
                del self._store[next(iter(self._store))]
            else:
                self._store.popitem(last=False)

    def __repr__(self) -> str:
        return f"Cache({self.name!r}, {len(self)}/{self.max_entries})"


_REGISTRY: dict[str, Cache] = {}


def caches(prefix: str = "") -> dict[str, Cache]:
    """The registered caches whose name starts with ``prefix`` (all by default), by name.
    Registered when their module is imported."""
    return {name: cache for name, cache in _REGISTRY.items() if name.startswith(prefix)}


def memo(name: str, max_entries: int | None) -> Callable[[Callable], Callable]:
    """``functools.lru_cache(max_entries)`` registered under ``name`` (unique, as a
    :class:`Cache`'s) for :func:`clear_caches`: for pure functions called in the searches'
    inner loops, where a :class:`Cache`'s lock and counts would cost more than a hit saves."""
    def register(function: Callable) -> Callable:
        if name in _REGISTRY or name in _MEMOS:
            raise KeyError(f"a cache named {name!r} exists already")
        _MEMOS[name] = remembered = functools.lru_cache(maxsize=max_entries)(function)
        return remembered
    return register


_MEMOS: dict[str, Callable] = {}


def clear_caches(prefix: str = "") -> None:
    """Clear every registered cache and :func:`memo` whose name starts with ``prefix`` ("" :
    all of them; "missions.split." : the split's per-sheet-state figures)."""
    for cache in caches(prefix).values():
        cache.clear()
    for name, remembered in _MEMOS.items():
        if name.startswith(prefix):
            remembered.cache_clear()
