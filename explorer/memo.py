"""A bounded cache that is safe to use from several threads: what the workspace keeps its
documents, chunkings, retrievers and corpora in (and the app its page images)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """A bounded cache that makes each value once, even when several threads ask at once: the
    least recently used value goes first beyond ``size``, and a value being made is made once
    while the others asking wait for it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[K, threading.Lock] = {}

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._lock:
                if key in self._items:
                    return self._items[key]
            try:
                value = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._items[key] = value
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return value

    def peek(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)

    def __len__(self) -> int:
        return len(self._items)
