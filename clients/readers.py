"""Dataset readers: every file layout people keep benchmark items in, read one way.

A *source* is a file or a directory of benchmark rows.  ``open_source(path)``
recognises its format and yields ``Record``s — one per row, each with a
*reference* that a person can find again:

* text formats (JSONL, a JSON array, CSV/TSV/any-delimiter, the intervention-effect
  ``|`` template files): the **1-based line of the file** where the row starts;
* binary formats (Parquet, Arrow files of a Hugging Face ``save_to_disk``
  directory): the **1-based record number** (counted across the files of a
  directory, in the order listed by ``Source.files``).

A row that cannot be read — a byte that is not UTF-8, a line that is not JSON, a
CSV line with the wrong number of fields — becomes one ``Record`` with an
``error`` saying where and why; the rows around it are still read.  Nothing here
raises on bad *content*; ``InputError`` is raised only when the source itself
cannot be opened (missing, unknown format, Parquet without ``pyarrow``, a Parquet
or Arrow file that ``pyarrow`` cannot decode: its message names the file).

Formats, recognised from the name (and, for text, the first bytes):

=====================  ====================================================
``*.jsonl``/``*.ndjson``  one JSON object per line
``*.json``             a JSON array of objects (or JSON lines, if it is not an array)
``*.csv``/``*.tsv``/…  header line + rows; delimiter sniffed among ``, \\t | ;``;
                       a UTF-8 byte-order mark is ignored
``*.parquet``          Parquet (needs ``pyarrow``: ``pip install causal-oracle[data]``)
directory              ``datasets`` ``save_to_disk`` output (``state.json`` +
                       ``*.arrow``, or ``dataset_dict.json`` + one folder per
                       split) or a Hub-style data folder (``data/*.parquet``,
                       ``*.jsonl``, ``*.csv`` …, searched recursively)
=====================  ====================================================

Every row read from a file is offered the file's name (``Registry.file_row``): a
benchmark whose files are named after the task their records leave out (CaLM's
``AR-B_CaLM-AR_EN.json``) gets the row completed by its family, so every surface that
reads files reads such a row as the family means it.  ``records(named=False)`` gives the
rows exactly as the file holds them (what a corrected copy writes back).

The text formats' own readers are ``clients.text_formats``; a delimited row in a
family's template layout (upstream intervention-effect templates, header
``dag|prompt|question|label``) is read by that family (``Registry.template_row``).
Which column holds which role is ``clients.columns``'s business (``detect_columns``,
re-exported here).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_oracle.clients.columns import ALIASES, ROLES, Detected, detect_columns, fix_hint
from causal_oracle.clients.text_formats import (
    DELIMITED_SUFFIXES,
    Record,
    delimited_records,
    json_array_records,
    json_line,
    jsonl_records,
    sniff_delimiter,
)
from causal_oracle.entry import REGISTRY, InputError


class Format(enum.Enum):
    JSONL = "jsonl"
    JSON_ARRAY = "json"
    DELIMITED = "csv"
    PARQUET = "parquet"
    ARROW = "arrow"  # Arrow IPC stream, as written by datasets.save_to_disk


TEXT_FORMATS = (Format.JSONL, Format.JSON_ARRAY, Format.DELIMITED)
_DATA_SUFFIXES = (".parquet", ".arrow", ".jsonl", ".ndjson", ".json", *DELIMITED_SUFFIXES)
_SKIP_JSON = {"dataset_info.json", "state.json", "dataset_dict.json"}


# ---- binary formats ----------------------------------------------------------------------

def _pyarrow() -> Any:
    try:
        import pyarrow  # type: ignore[import-not-found]
        import pyarrow.ipc  # type: ignore[import-not-found]
        import pyarrow.parquet  # type: ignore[import-not-found]
    except ImportError as error:
        raise InputError("reading Parquet/Arrow needs pyarrow: "
                         "pip install 'causal-oracle[data]'") from error
    return pyarrow


def _unreadable(path: Path, fmt: Format, error: Exception) -> InputError:
    """A Parquet/Arrow file pyarrow cannot decode (corrupt, cut short, another format)."""
    kind = "Parquet" if fmt is Format.PARQUET else "Arrow"
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return InputError(f"{path}: not a readable {kind} file ({reason})")


def _arrow_errors() -> tuple[type[BaseException], ...]:
    pa = _pyarrow()
    return (pa.ArrowException, OSError, ValueError)


def _arrow_batches(path: Path, fmt: Format) -> Iterator[Any]:
    errors = _arrow_errors()
    try:
        yield from _arrow_batches_unchecked(path, fmt)
    except errors as error:
        raise _unreadable(path, fmt, error) from None


def _arrow_batches_unchecked(path: Path, fmt: Format) -> Iterator[Any]:
    pa = _pyarrow()
    if fmt is Format.PARQUET:
        yield from pa.parquet.ParquetFile(str(path)).iter_batches(batch_size=2048)
        return
    with pa.memory_map(str(path)) as source:
        try:
            reader = pa.ipc.open_stream(source)
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(source)
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)
            return
        yield from reader


def _arrow_columns(path: Path, fmt: Format) -> list[str]:
    pa = _pyarrow()
    try:
        if fmt is Format.PARQUET:
            return list(pa.parquet.read_schema(str(path)).names)
        with pa.memory_map(str(path)) as source:
            try:
                return list(pa.ipc.open_stream(source).schema.names)
            except pa.ArrowInvalid:
                return list(pa.ipc.open_file(source).schema.names)
    except _arrow_errors() as error:
        raise _unreadable(path, fmt, error) from None


def _arrow_count(path: Path, fmt: Format) -> int:
    pa = _pyarrow()
    if fmt is Format.PARQUET:
        try:
            return int(pa.parquet.ParquetFile(str(path)).metadata.num_rows)
        except _arrow_errors() as error:
            raise _unreadable(path, fmt, error) from None
    return sum(batch.num_rows for batch in _arrow_batches(path, fmt))


def named_row(row: dict[str, Any], file: Path | str) -> dict[str, Any]:
    """``row`` as read from ``file``: completed by the family its file's name speaks to
    (``Registry.file_row``), else ``row`` itself."""
    done = REGISTRY.file_row(row, Path(file).name)
    return row if done is row else dict(done)


RowNamer = Callable[[dict[str, Any]], dict[str, Any]]


def row_namer(file: Path | str) -> RowNamer | None:
    """``named_row`` for every row of ``file``, its name read once
    (``Registry.file_namer``); None when no family reads file names (rows are then
    read as they are)."""
    named = REGISTRY.file_namer(Path(file).name)
    if named is None:
        return None

    def name(row: dict[str, Any]) -> dict[str, Any]:
        done = named(row)
        return row if done is row else dict(done)
    return name


def template_record(record: Record) -> Record:
    """A delimited file's record as the family whose template layout its row has reads
    it (``Registry.template_row``: IE's upstream template files), else unchanged."""
    if record.row is None:
        return record
    row = REGISTRY.template_row(record.row)
    return record if row is record.row else Record(record.ref, dict(row), record.error)


def _named(records: Iterator[Record] | list[Record], file: Path) -> Iterator[Record]:
    name = row_namer(file)
    if name is None:
        yield from records
        return
    for record in records:
        if record.row is None:
            yield record
            continue
        row = name(record.row)
        yield record if row is record.row else Record(record.ref, row, record.error)


# ---- sources -----------------------------------------------------------------------------

def format_of(path: Path) -> Format:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return Format.JSONL
    if suffix == ".json":
        return Format.JSON_ARRAY
    if suffix == ".parquet":
        return Format.PARQUET
    if suffix == ".arrow":
        return Format.ARROW
    if suffix in DELIMITED_SUFFIXES:
        return Format.DELIMITED
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(b"PAR1"):
        return Format.PARQUET
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        return Format.JSON_ARRAY
    if stripped.startswith(b"{"):
        return Format.JSONL
    if head and b"\0" not in head:
        return Format.DELIMITED
    raise InputError(f"{path}: unknown file format (expected JSONL, JSON, CSV/TSV, "
                     f"Parquet or a datasets directory)")


def _directory_files(path: Path) -> list[Path]:
    """Data files of a ``save_to_disk`` directory or a Hub-style data folder, in order."""
    dict_file = path / "dataset_dict.json"
    if dict_file.is_file():
        try:
            splits = json.loads(dict_file.read_text(encoding="utf-8"))["splits"]
        except (ValueError, KeyError, TypeError) as error:
            raise InputError(f"{dict_file}: not a datasets dataset_dict.json") from error
        return [f for split in splits for f in _directory_files(path / str(split))]
    if (path / "state.json").is_file():
        try:
            state = json.loads((path / "state.json").read_text(encoding="utf-8"))
            names = [entry["filename"] for entry in state["_data_files"]]
        except (ValueError, KeyError, TypeError) as error:
            raise InputError(f"{path / 'state.json'}: not a datasets state.json") from error
        return [path / name for name in names]
    files = sorted(f for f in path.rglob("*") if f.is_file()
                   and f.suffix.lower() in _DATA_SUFFIXES and f.name not in _SKIP_JSON
                   and not any(part.startswith(".") for part in f.relative_to(path).parts)
                   and f.name.lower() not in ("readme.md",))
    return files


@dataclass
class Source:
    """A readable dataset: one file or the data files of a directory."""

    path: Path
    files: list[tuple[Path, Format]] = field(default_factory=list)
    #: the records of a lone JSON-array file, decoded once (``unit`` needs them all)
    _array: list[Record] | None = field(default=None, repr=False)

    @property
    def format(self) -> Format:
        return self.files[0][1]

    @property
    def binary(self) -> bool:
        return self.format not in TEXT_FORMATS

    @property
    def unit(self) -> str:
        """What a row reference counts: ``"line"`` or ``"record"``.  A JSON array that
        puts several objects on one line (``json.dumps`` without ``indent``) is counted
        by record: a line number would not tell its rows apart."""
        if self.binary or len(self.files) > 1:
            return "record"
        if self.format is Format.JSON_ARRAY:
            refs = [r.ref for r in self._file_records(*self.files[0])]
            if len(set(refs)) != len(refs):
                return "record"
        return "line"

    def describe(self) -> str:
        kinds = sorted({fmt.value for _, fmt in self.files})
        where = f"{len(self.files)} files" if len(self.files) > 1 else self.files[0][0].name
        return f"{'/'.join(kinds)} ({where}); rows referenced by {self.unit} number"

    def columns(self) -> list[str]:
        """Column names: the header (delimited, Arrow) or the first readable row's keys."""
        for file, fmt in self.files:
            if fmt in (Format.PARQUET, Format.ARROW):
                return _arrow_columns(file, fmt)
            for record in self._file_records(file, fmt, named=False):
                if record.row is not None:
                    return list(record.row)
        return []

    def has_column(self, name: str) -> bool:
        """Whether any row has a column ``name`` (the schema for binary files; for text,
        the first row, then a scan: rows of a mixed file differ)."""
        if name in self.columns():
            return True
        if self.binary:
            return False
        return any(record.row is not None and name in record.row for record in self.records())

    def records(self, named: bool = True) -> Iterator[Record]:
        """Every row in order; with several files (or binary ones) refs are record numbers.
        ``named``: each row as completed from its file's name (``named_row``); False:
        as the file holds it."""
        if self.unit == "line":
            file, fmt = self.files[0]
            yield from self._file_records(file, fmt, named)
            return
        number = 0
        for file, fmt in self.files:
            for record in self._file_records(file, fmt, named):
                number += 1
                error = record.error
                if error is not None and len(self.files) > 1:
                    error = f"{file.relative_to(self.path)}: {error}"
                yield Record(number, record.row, error)

    def count(self) -> int:
        """Number of rows (cheap for Parquet; a scan for text)."""
        total = 0
        for file, fmt in self.files:
            if fmt in (Format.PARQUET, Format.ARROW):
                total += _arrow_count(file, fmt)
            elif fmt is Format.JSONL:
                with file.open("rb") as handle:
                    total += sum(1 for line in handle if line.strip())
            else:
                total += sum(1 for _ in self._file_records(file, fmt))
        return total

    def _file_records(self, file: Path, fmt: Format, named: bool = True
                      ) -> Iterator[Record]:
        records = self._raw_records(file, fmt)
        yield from _named(records, file) if named else records

    def _raw_records(self, file: Path, fmt: Format) -> Iterator[Record]:
        if fmt is Format.JSONL:
            yield from jsonl_records(file)
        elif fmt is Format.JSON_ARRAY and len(self.files) == 1:
            if self._array is None:
                self._array = list(json_array_records(file))
            yield from self._array
        elif fmt is Format.JSON_ARRAY:
            yield from json_array_records(file)
        elif fmt is Format.DELIMITED:
            for record in delimited_records(file):
                yield template_record(record)
        else:
            number = 0
            for batch in _arrow_batches(file, fmt):
                for row in batch.to_pylist():
                    number += 1
                    yield Record(number, row)


def open_source(path: str | Path) -> Source:
    """The ``Source`` at ``path``; ``InputError`` if it is missing or of no known format."""
    path = Path(path)
    if path.is_dir():
        files = _directory_files(path)
        if not files:
            raise InputError(f"{path}: a directory with no data files (expected a datasets "
                             f"save_to_disk directory or *.parquet/*.jsonl/*.csv files)")
        return Source(path, [(f, format_of(f)) for f in files])
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    return Source(path, [(path, format_of(path))])


def read_records(path: str | Path, named: bool = True) -> Iterator[Record]:
    """Shorthand for ``open_source(path).records(named)``."""
    return open_source(path).records(named)


def at_row(unit: str, ref: int, error: object) -> str:
    """``error`` of row ``ref`` with the row's place said once: "line 3: …", or the
    error alone when it already starts there (a reader's own file position).

    >>> at_row("line", 3, "line 3, column 7: invalid JSON"), at_row("line", 3, "no label")
    ('line 3, column 7: invalid JSON', 'line 3: no label')
    """
    text = str(error)
    place = f"{unit} {ref}"
    if text.startswith((place + ",", place + ":")):
        return text
    return f"{place}: {text}"


__all__ = ["ALIASES", "ROLES", "Detected", "Format", "Record", "Source", "at_row",
           "detect_columns", "fix_hint", "format_of", "json_line", "named_row",
           "open_source", "read_records", "row_namer", "sniff_delimiter", "template_record"]
