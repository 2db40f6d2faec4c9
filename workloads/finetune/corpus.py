"""``--data`` read as a stream into a compact array of token ids (torch-free).

The file is read in blocks of :data:`BLOCK_BYTES`, a JSONL file a line at a time with each line capped at
:data:`MAX_LINE_BYTES` (a record is parsed whole: one 500 MB line cost 5.9 GB as bytes, text, parsed text and
encoded copies). Every byte read is checked as the argument check checks the first 64 KB
(workloads/finetune/options.py): no NUL byte, UTF-8; a JSONL line must parse, however deep it nests. Reading
stops once the run has every token its steps take.

Byte-level ids are one byte each (a ``bytearray``), a tokenizer's four (``array('i')``): 100 MB of text held as
a Python list of ids took 1.7 GB. A tokenizer encodes the text a block at a time, each block ending at a line's
end, and only the first block gets the tokenizer's special tokens, so the ids are the whole text's (a tokenizer
that marks the start of each call, SentencePiece's prefix space, differs by a token a block).
"""

from __future__ import annotations

import codecs
import json
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from workloads.child.harness import WorkloadError
from workloads.errors import first_line
from workloads.facts.formatting import format_bytes

BLOCK_BYTES = 1 << 20
MAX_LINE_BYTES = 16 << 20   # a JSONL record is a document: a long book is a few MB
HINT = "give a text file or a JSONL file with a 'text' field per line"
BYTE_LEVEL = "byte-level tokens: no tokenizer given (ids 0-255)"


@dataclass
class Tokens:
    ids: bytearray | array   # a bytearray of byte-level ids, or array('i') of a tokenizer's
    how: str                 # how the text became ids, for the run log
    whole: bool              # False: reading stopped once the run's steps had their tokens


def read(path: Path, tokenizer_dir: Path | None, needed: int | None = None) -> Tokens:
    """The ids of ``path``'s text (its JSONL records' texts joined by newlines), at least ``needed`` of them where
    the file has them; every refusal is a :class:`WorkloadError` naming the line or byte."""
    sink = _sink(tokenizer_dir)
    limit = needed if needed is not None else float("inf")
    try:
        with open(path, "rb") as f:
            jsonl = _is_jsonl(path, f)
            whole = (_read_jsonl if jsonl else _read_text)(f, path, sink, limit)
    except OSError as exc:
        raise WorkloadError(f"--data {path}: cannot read it ({first_line(exc, typed=True)})", hint=HINT) from None
    sink.flush()
    if jsonl and not sink.worded:
        raise WorkloadError(f"--data {path}: no line holds text", hint=HINT)
    if not sink.ids:
        raise WorkloadError(f"--data {path} is empty", hint=HINT)
    return Tokens(sink.ids, sink.how, whole)


def _is_jsonl(path: Path, f: BinaryIO) -> bool:
    """By its name, or by its first character that is not white space being ``{``."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return True
    while block := f.read(BLOCK_BYTES):
        start = block.lstrip()
        if start:
            f.seek(0)
            return start.startswith(b"{")
    f.seek(0)
    return False


def _read_text(f: BinaryIO, path: Path, sink: Any, limit: float) -> bool:
    """Blocks of plain text, each cut at its last line end (the rest carried over) so a tokenizer never sees a word
    split; universal newlines, as ``open(..., newline=None)`` reads them. True when the file was read to its end."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, carry = 0, ""
    while block := f.read(BLOCK_BYTES):
        _refuse_nul(block, offset, path)
        pending = len(decoder.getstate()[0])   # bytes of a character cut at the last block's end
        try:
            text = carry + decoder.decode(block)
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, offset - pending + exc.start) from None
        offset += len(block)
        text, carry = _cut(text)
        sink.add(text)
        sink.cut()
        if len(sink.ids) >= limit:
            return False
    try:
        rest = carry + decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, offset - len(decoder.getstate()[0]) + exc.start) from None
    sink.add(_newlines(rest))
    return True


def _cut(text: str) -> tuple[str, str]:
    """(up to the last line end, the rest): at the last space when a line is longer than a block."""
    held = "\r" if text.endswith("\r") else ""   # perhaps the first half of a "\r\n" the next block ends
    text = _newlines(text[:len(text) - len(held)])
    cut = text.rfind("\n") + 1 or text.rfind(" ") + 1 or len(text)
    return text[:cut], text[cut:] + held


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_jsonl(f: BinaryIO, path: Path, sink: Any, limit: float) -> bool:
    """A line at a time, none longer than MAX_LINE_BYTES: each record's 'text', or its string fields
    (prompt/response and the like), joined by newlines. True when the file was read to its end."""
    offset, number = 0, 0
    while line := f.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise WorkloadError(f"--data {path}: line {number} is longer than {format_bytes(MAX_LINE_BYTES)}; a JSONL "
                                "record is one document, not a corpus", hint="give one document a line")
        _refuse_nul(line, offset, path)
        offset += len(line)
        if not line.strip():
            continue
        for text in _texts(_record(line, number, offset - len(line), path)):
            if not sink.add_record(text):
                raise WorkloadError(f"--data {path}: line {number} holds an unpaired surrogate (an escape like "
                                    "\\ud800 alone), not text", hint=HINT)
        sink.cut()
        if len(sink.ids) >= limit:
            return False
    return True


def _record(line: bytes, number: int, offset: int, path: Path) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, offset + exc.start) from None
    except RecursionError:   # the parser recurses a level a bracket: 100,000 of them exhaust the stack
        raise WorkloadError(f"--data {path}: line {number} nests deeper than the JSON reader's recursion limit",
                            hint=HINT) from None
    except ValueError:
        raise WorkloadError(f"--data {path}: line {number} is not JSON", hint=HINT) from None


def _texts(record: Any) -> list[str]:
    if isinstance(record, dict) and isinstance(record.get("text"), str):
        return [record["text"]]
    if isinstance(record, dict):
        return [v for v in record.values() if isinstance(v, str)]   # prompt/response and the like
    return []


def _refuse_nul(data: bytes, offset: int, path: Path) -> None:
    at = data.find(b"\0")
    if at >= 0:
        raise WorkloadError(f"--data {path} is not text: a NUL byte at byte {offset + at}", hint=HINT)


def _not_utf8(path: Path, at: int) -> WorkloadError:
    return WorkloadError(f"--data {path} is not UTF-8 text (byte {at})", hint=HINT)


class _Bytes:
    """Each UTF-8 byte of the text an id, held in one byte."""

    how = BYTE_LEVEL

    def __init__(self) -> None:
        self.ids: bytearray | array = bytearray()
        self.texts = 0   # JSONL records' texts added
        self.worded = False   # one of them holds more than white space

    def add(self, text: str) -> None:
        self.ids += text.encode("utf-8")

    def add_record(self, text: str) -> bool:
        """A JSONL record's text, after a newline when one came before; False for text that is not UTF-8 (a lone
        surrogate from a JSON escape), which neither bytes nor a tokenizer can take."""
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:
            return False
        self._append(text, encoded)
        self.texts += 1
        self.worded = self.worded or (bool(text) and not text.isspace())
        return True

    def _append(self, text: str, encoded: bytes) -> None:
        if self.texts:
            self.ids += b"\n"
        self.ids += encoded

    def cut(self) -> None:
        """A point between lines, where a tokenizer may encode what it holds."""

    def flush(self) -> None:
        """Nothing is held back here."""


class _Tokenized(_Bytes):
    """A tokenizer's ids (four bytes each), encoded a block of text at a time."""

    def __init__(self, tokenizer: Any, path: Path) -> None:
        super().__init__()
        self.tokenizer, self.how = tokenizer, f"tokenized with {path}"
        self.ids = array("i")
        self.pending: list[str] = []
        self.size = 0
        self.started = False

    def add(self, text: str) -> None:
        self.pending.append(text)
        self.size += len(text)

    def _append(self, text: str, encoded: bytes) -> None:
        if self.texts:
            self.add("\n")
        self.add(text)

    def cut(self) -> None:
        if self.size >= BLOCK_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            # the tokenizer's special tokens (a BOS) once, at the start, as the whole text would have them
            encoding = self.tokenizer.encode("".join(self.pending), add_special_tokens=not self.started)
            self.ids.extend(encoding.ids)
            self.started = True
        self.pending, self.size = [], 0


def _sink(tokenizer_dir: Path | None) -> _Bytes:
    path = tokenizer_dir / "tokenizer.json" if tokenizer_dir is not None else None
    if path is not None and path.is_file():
        try:
            from tokenizers import Tokenizer

            return _Tokenized(Tokenizer.from_file(str(path)), path)
        except ImportError:
            pass
    return _Bytes()
