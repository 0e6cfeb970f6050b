"""The gRPC server's response cache: serialised responses by serialised request.

A repeated item (the same request bytes) is answered from here without a round trip
to a worker.  A key is the request's bytes, or a tuple of strings and bytes (the
server's ``(kind, request bytes)``: no bytes joined per item); its size is its
parts' lengths.  The cache is bounded twice — at most ``items`` entries and at most
``max_bytes`` bytes of keys and values together — and forgets the least recently used
entry first; an entry larger than a sixteenth of the byte bound is not kept at all
(one huge item must not flush the cache).  Only the event loop touches it: no lock.

    >>> cache = ResponseCache(items=2, max_bytes=1000)
    >>> cache.put(b"a", (True, b"1")); cache.put(b"b", (True, b"2"))
    >>> cache.put(b"c", (True, b"3"))
    >>> cache.get(b"a"), cache.get(b"c"), len(cache), cache.nbytes
    (None, (True, b'3'), 2, 4)
    >>> cache.put(b"big", (True, b"x" * 100))  # over 1000 / 16 bytes: not kept
    >>> cache.get(b"big") is None
    True
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

ENTRY_SHARE = 16  # an entry may take at most this fraction (1/16) of the byte bound


class ResponseCache:
    """``(ok, bytes)`` by request bytes, at most ``items`` entries and ``max_bytes``."""

    @staticmethod
    def key_size(key: Hashable) -> int:
        """The bytes a key holds: its length, or its parts' lengths."""
        return len(key) if isinstance(key, bytes) else sum(map(len, key))  # type: ignore[arg-type]

    def __init__(self, items: int, max_bytes: int) -> None:
        self.items, self.max_bytes = items, max_bytes
        self.nbytes = 0
        self._data: OrderedDict[Hashable, tuple[bool, bytes]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[bool, bytes] | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: Hashable, value: tuple[bool, bytes], key_size: int | None = None
            ) -> None:
        """Keep ``value`` under ``key`` (``key_size``: ``key_size(key)``, when the caller
        knows it)."""
        if key_size is None:
            key_size = self.key_size(key)
        size = key_size + len(value[1])
        if self.items <= 0 or size * ENTRY_SHARE > self.max_bytes:
            return
        old = self._data.pop(key, None)
        if old is not None:
            self.nbytes -= key_size + len(old[1])
        self._data[key] = value
        self.nbytes += size
        while len(self._data) > self.items or self.nbytes > self.max_bytes:
            gone, (_, data) = self._data.popitem(last=False)
            self.nbytes -= self.key_size(gone) + len(data)

    def __len__(self) -> int:
        return len(self._data)


__all__ = ["ResponseCache"]
