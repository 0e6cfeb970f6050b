"""Text row formats: JSON lines, JSON arrays and delimited text, read row by row.

Each reader yields ``Record``s, one per row, referenced by the **1-based line of the
file** where the row starts.  A row that cannot be read — a byte that is not UTF-8, a
line that is not JSON, a CSV line with the wrong number of fields — becomes a
``Record`` with an ``error`` saying where and why, and reading goes on with the next
row: bad content never raises here.

* JSON lines: ``orjson`` decodes the lines it accepts; any line it refuses is decoded
  again by the standard library, whose messages (column, BOM, bad bytes, nesting) are
  the contract (``json_line``).
* A JSON array: each element is referenced by the line it starts on; a broken element
  is reported and reading resumes at the next line that opens an object.
* Delimited text: the header line names the fields; the delimiter is sniffed among
  ``, \\t | ;`` (``sniff_delimiter``); a UTF-8 byte-order mark is ignored.  A family
  whose benchmark ships template files reads their rows (``Registry.template_row``,
  applied by ``clients.readers``).

``clients.readers`` picks the reader for a file and numbers rows across files.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

DELIMITED_SUFFIXES = {".csv": ",", ".tsv": "\t", ".psv": "|", ".txt": None}


@dataclass(frozen=True)
class Record:
    """One row: ``ref`` is the 1-based file line (text) or record number (binary)."""

    ref: int
    row: dict[str, Any] | None
    error: str | None = None


def _bad_bytes(raw: bytes, line: int) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return (f"line {line}, byte {error.start + 1}: not UTF-8 "
                f"(0x{raw[error.start]:02x}); the row is skipped")
    return ""


def decode_lines(data: bytes) -> list[str]:
    """Lines of ``data`` as text; undecodable bytes become lone surrogates (flagged later)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="surrogateescape").splitlines(keepends=True)


def _has_bad_byte(text: str) -> int:
    """1-based index of the first undecodable byte in ``text`` (0 if none)."""
    for i, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":
            return i + 1
    return 0


def _bad_value(value: Any) -> bool:
    if isinstance(value, str):
        return _has_bad_byte(value) > 0
    if isinstance(value, dict):
        return any(_bad_value(v) for v in value.values()) or any(_bad_value(k) for k in value)
    if isinstance(value, list):
        return any(_bad_value(v) for v in value)
    return False


# ---- text formats ------------------------------------------------------------------------

def jsonl_records(path: Path) -> Iterator[Record]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            yield json_line(number, raw)


def json_line(number: int, raw: bytes | str) -> Record:
    """Decode one JSONL line (``number`` is its 1-based line).

    orjson decodes the lines it accepts (several times faster); any line it refuses
    is decoded again by the standard library, whose reading and error messages
    (column, BOM, bad bytes, nesting) are the contract."""
    if isinstance(raw, bytes) and not raw.startswith(b"\xef\xbb\xbf"):
        try:
            fast = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        else:
            if isinstance(fast, dict):
                return Record(number, fast)
    if isinstance(raw, bytes):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return Record(number, None, _bad_bytes(raw, number))
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as error:
        return Record(number, None, f"line {number}, column {error.colno}: invalid JSON: "
                                    f"{error.msg}")
    except RecursionError:
        return Record(number, None, f"line {number}: JSON nested too deeply")
    if not isinstance(row, dict):
        return Record(number, None, f"line {number}: expected a JSON object, got "
                                    f"{type(row).__name__}")
    return Record(number, row)


def json_array_records(path: Path) -> Iterator[Record]:
    """Objects of a top-level JSON array, each referenced by the line it starts on.

    A broken element is reported and reading resumes at the next line that starts
    an object; a non-UTF-8 byte makes the element holding it unreadable."""
    text = "".join(decode_lines(path.read_bytes()))
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] != "[":
        yield from (json_line(n, line) for n, line in enumerate(text.splitlines(), 1)
                    if line.strip())
        return
    pos += 1
    line = 1 + text.count("\n", 0, pos)
    last = pos
    while True:
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        if pos >= len(text):
            yield Record(line, None, f"line {line}: the JSON array is not closed")
            return
        if text[pos] == "]":
            return
        line += text.count("\n", last, pos)
        last = pos
        try:
            row, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as error:
            yield Record(line, None, f"line {error.lineno}, column {error.colno}: invalid "
                                     f"JSON: {error.msg}")
            nxt = _next_object_line(text, error.pos if error.pos > pos else pos + 1)
            if nxt < 0:
                return
            pos = nxt
            continue
        except RecursionError:
            yield Record(line, None, f"line {line}: JSON nested too deeply")
            nxt = _next_object_line(text, pos + 1)
            if nxt < 0:
                return
            pos = nxt
            continue
        if not isinstance(row, dict):
            yield Record(line, None, f"line {line}: expected a JSON object, got "
                                     f"{type(row).__name__}")
        elif _bad_value(row):
            yield Record(line, None, f"line {line}: the object holds bytes that are not "
                                     f"UTF-8; the row is skipped")
        else:
            yield Record(line, row)
        pos = end


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _next_object_line(text: str, pos: int) -> int:
    """Position of the next ``{`` that opens a line (after blanks), or -1."""
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            return -1
        at = _skip_ws(text, nl + 1)
        if at < len(text) and text[at] == "{":
            return at
        pos = nl + 1


def sniff_delimiter(header: str, suffix: str) -> str:
    """The delimiter of a header line: the suffix's, unless another one splits it better."""
    counts = {d: header.count(d) for d in (",", "\t", "|", ";")}
    preferred = DELIMITED_SUFFIXES.get(suffix)
    best = max(counts, key=lambda d: counts[d])
    if preferred and counts[preferred] and counts[preferred] >= counts[best] // 2:
        return preferred
    return best if counts[best] else (preferred or ",")


def delimited_records(path: Path) -> Iterator[Record]:
    lines = decode_lines(path.read_bytes())
    if not lines:
        return
    delimiter = sniff_delimiter(lines[0], path.suffix.lower())
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    header = [h.strip() for h in header]
    start = reader.line_num + 1
    for fields in reader:
        line, start = start, reader.line_num + 1
        if not fields or all(not f.strip() for f in fields):
            continue
        bad = next((f for f in fields if _has_bad_byte(f)), None)
        if bad is not None:
            yield Record(line, None, f"line {line}: a field holds bytes that are not UTF-8 "
                                     f"(byte {_has_bad_byte(bad)} of the field); the row "
                                     f"is skipped")
        elif len(fields) != len(header):
            yield Record(line, None, f"line {line}: {len(fields)} fields separated by "
                                     f"{delimiter!r}, the header has {len(header)}")
        else:
            yield Record(line, dict(zip(header, fields, strict=True)))


__all__ = ["DELIMITED_SUFFIXES", "Record", "decode_lines", "delimited_records",
           "json_array_records", "json_line", "jsonl_records",
           "sniff_delimiter"]
