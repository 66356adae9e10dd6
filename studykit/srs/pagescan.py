"""Table rows read straight from the pages of a damaged SQLite file, as `.recover` does.

When damage hits a table's root or an interior page, SQLite cannot reach the leaf pages
below it, although their rows are intact. This reads the file by its documented format
(https://sqlite.org/fileformat2.html): every table-leaf page that is not on the freelist,
every cell on it (with its overflow chain) decoded into (rowid, values). Which table a row
belongs to is not stored on the page; the caller decides by checking the row's shape.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_LEAF_TABLE = 0x0D
_HEADER = b"SQLite format 3\x00"


def _varint(data: bytes | mmap.mmap, at: int, end: int) -> tuple[int, int]:
    """(value, position after) of the big-endian varint at `at`; ValueError past `end`."""
    value = 0
    for index in range(9):
        if at + index >= end:
            raise ValueError("varint runs past its page")
        byte = data[at + index]
        if index == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + index + 1
    raise AssertionError("unreachable")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


_INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def decode_record(payload: bytes) -> tuple[Any, ...] | None:
    """The values of one record (None when its header and body do not agree)."""
    try:
        header_size, at = _varint(payload, 0, len(payload))
        if header_size > len(payload) or header_size < 1:
            return None
        kinds = []
        while at < header_size:
            kind, at = _varint(payload, at, header_size)
            kinds.append(kind)
    except ValueError:
        return None
    values: list[Any] = []
    body = header_size
    for kind in kinds:
        if kind == 0:
            values.append(None)
        elif kind in _INT_SIZES:
            size = _INT_SIZES[kind]
            values.append(int.from_bytes(payload[body : body + size], "big", signed=True))
            body += size
        elif kind == 7:
            values.append(struct.unpack(">d", payload[body : body + 8])[0])
            body += 8
        elif kind in (8, 9):
            values.append(kind - 8)
        elif kind >= 12:
            size = (kind - 12) // 2
            raw = payload[body : body + size]
            body += size
            if kind % 2:
                try:
                    values.append(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    return None
            else:
                values.append(bytes(raw))
        else:
            return None  # 10 and 11 are reserved
        if body > len(payload):
            return None
    return tuple(values) if body == len(payload) else None


class PageFile:
    """A database file's pages, read-only."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        if data[:16] != _HEADER:
            raise ValueError("no SQLite header")
        size = int.from_bytes(data[16:18], "big")
        self.page_size = 65536 if size == 1 else size
        if self.page_size < 512 or self.page_size & (self.page_size - 1):
            raise ValueError("page size in the header is not a power of two")
        self.usable = self.page_size - data[20]
        self.pages = len(data) // self.page_size

    def _start(self, number: int) -> int:
        return (number - 1) * self.page_size

    def freelist(self) -> set[int] | None:
        """Pages on the freelist (their rows were deleted); None when the list is unreadable."""
        trunk = int.from_bytes(self.data[32:36], "big")
        free: set[int] = set()
        while trunk:
            if not 1 < trunk <= self.pages or trunk in free:
                return None
            free.add(trunk)
            start = self._start(trunk)
            following = int.from_bytes(self.data[start : start + 4], "big")
            count = int.from_bytes(self.data[start + 4 : start + 8], "big")
            if count > (self.usable - 8) // 4:
                return None
            for index in range(count):
                at = start + 8 + 4 * index
                leaf = int.from_bytes(self.data[at : at + 4], "big")
                if not 1 < leaf <= self.pages:
                    return None
                free.add(leaf)
            trunk = following
        return free

    def _payload(self, page: int, at: int, end: int) -> tuple[int, bytes] | None:
        """(rowid, payload) of the table-leaf cell at `at`, overflow pages followed."""
        try:
            size, at = _varint(self.data, at, end)
            rowid, at = _varint(self.data, at, end)
        except ValueError:
            return None
        usable = self.usable
        most = usable - 35
        if size <= most:
            local = size
        else:
            least = (usable - 12) * 32 // 255 - 23
            local = least + (size - least) % (usable - 4)
            local = local if local <= most else least
        if at + local + (4 if size > local else 0) > end:
            return None
        parts = [bytes(self.data[at : at + local])]
        got, following = local, int.from_bytes(self.data[at + local : at + local + 4], "big")
        seen: set[int] = set()
        while got < size:
            if not 1 < following <= self.pages or following in seen:
                return None
            seen.add(following)
            start = self._start(following)
            take = min(usable - 4, size - got)
            parts.append(bytes(self.data[start + 4 : start + 4 + take]))
            got += take
            following = int.from_bytes(self.data[start : start + 4], "big")
        return _signed(rowid), b"".join(parts)

    def table_rows(self, skip: set[int]) -> Iterator[tuple[int, tuple[Any, ...]]]:
        """(rowid, values) of every cell on every table-leaf page not in `skip`."""
        for number in range(1, self.pages + 1):
            if number in skip:
                continue
            start = self._start(number)
            header = start + (100 if number == 1 else 0)
            if self.data[header] != _LEAF_TABLE:
                continue
            end = start + self.usable
            cells = int.from_bytes(self.data[header + 3 : header + 5], "big")
            pointers = header + 8
            if pointers + 2 * cells > end:
                continue
            for index in range(cells):
                offset = int.from_bytes(self.data[pointers + 2 * index : pointers + 2 * index + 2])
                if not pointers + 2 * cells <= start + offset < end:
                    continue
                cell = self._payload(number, start + offset, end)
                if cell is None:
                    continue
                values = decode_record(cell[1])
                if values is not None:
                    yield cell[0], values


def scan(path: Path) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(rowid, values) of every row on the file's table-leaf pages outside the freelist.

    Nothing when the freelist cannot be read: its pages hold deleted rows (an undone
    answer), which must not come back, and they could no longer be told apart.
    """
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
        try:
            pages = PageFile(data)
        except ValueError:
            return
        free = pages.freelist()
        if free is None:
            return
        yield from pages.table_rows(free)
