"""Traffic like a user's, each seeded (the same requests on every run and every card) and said in the result:

- ``--shared-prefix G,P,S,Q``: G groups of P prompts, each group's sharing one system prompt of S tokens, each prompt
  its own question of Q tokens (SGLang's bench_serving ``generated-shared-prefix`` dataset: its --gsp-num-groups,
  --gsp-prompts-per-group, --gsp-system-prompt-len, --gsp-question-len), sent in a seeded shuffle. A server with a
  prefix cache computes a system prompt once: the TTFT of each group's first request sent against its later ones is
  that cache's effect (``prefix_first_ttft_ms_p50`` and ``prefix_later_ttft_ms_p50``, from the due time).
- ``--trace FILE [--trace-speed X]``: a request trace replayed at its own arrival times (divided by X): Mooncake's JSON
  lines (``timestamp`` in ms, ``input_length``, ``output_length``, ``hash_ids``: 512-token blocks a prompt shares
  with another where their ids agree; kvcache-ai/Mooncake, mooncake_trace.jsonl) or BurstGPT's CSV (``Timestamp`` in
  s, ``Request tokens``, ``Response tokens``; HPMLL/BurstGPT). The file is read a line at a time and only the rows
  replayed are kept (--requests N, else the first 100,000): a trace of a gigabyte is never read whole. Times must
  start at 0 or later and never go back (a row that does is named, exit 2).
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any, Callable, Iterator, Sequence

from workloads.serve.client import Outcome
from workloads.serve.conversation import MultiTurn
from workloads.serve.load import WORDS, Request

TRACE_ROWS = 100_000       # rows replayed when --requests does not say
MOONCAKE_BLOCK = 512       # tokens a hash id stands for (Mooncake's block)
_BURSTGPT = ("Timestamp", "Request tokens", "Response tokens")


class BadTraffic(ValueError):
    pass


def _words(rng: random.Random, n: int) -> list[str]:
    return rng.choices(WORDS, k=max(0, n))


@dataclass(frozen=True)
class SharedPrefix:
    groups: int
    prompts: int
    system: int       # tokens of each group's shared system prompt
    question: int     # tokens of each prompt's own question

    @classmethod
    def parse(cls, text: str) -> SharedPrefix:
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise BadTraffic(f"--shared-prefix {text!r}: give G,P,S,Q, four positive whole numbers (groups, prompts "
                             "a group, system prompt tokens, question tokens), e.g. 8,16,2048,128")
        found = cls(*map(int, parts))
        if found.groups * found.prompts > 100_000 or found.system + found.question > 1_000_000:
            raise BadTraffic(f"--shared-prefix {text!r}: at most 100000 prompts and 1000000 tokens each")
        return found

    def said(self) -> str:
        return f"{self.groups} groups x {self.prompts} prompts, system prompt {self.system} tokens, question " \
               f"{self.question} tokens"

    def requests(self, seed: int, output_len: int) -> list[Request]:
        """G x P requests in a seeded shuffle; each a chat's system prompt and question (on /v1/completions, their
        texts one after the other). A level's own ``seed`` gives it system prompts of its own: no level is served
        from a cache the one before filled."""
        rng = random.Random(seed)
        asked = []
        for g in range(self.groups):
            system = " ".join([f"system {seed} {g}"] + _words(rng, self.system - 3))
            for k in range(self.prompts):
                question = " ".join([f"{g}.{k}"] + _words(rng, self.question - 1))
                asked.append(Request([{"role": "system", "content": system}, {"role": "user", "content": question}],
                                     self.system + self.question, output_len, group=g))
        rng.shuffle(asked)
        return asked


def prefix_figures(requests: Sequence[Request], outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """TTFT p50 (ms, from the due time) of each group's first request sent, and of its later ones."""
    first: dict[int, Outcome] = {}
    for r, o in sorted(zip(requests, outcomes), key=lambda pair: pair[1].sent):
        first.setdefault(r.group, o)
    ttft = {True: [], False: []}
    for r, o in zip(requests, outcomes):
        if o.ok and o.ttft_due is not None:
            ttft[first.get(r.group) is o].append(o.ttft_due * 1000)
    return {"prefix_first_ttft_ms_p50": median(ttft[True]) if ttft[True] else None,
            "prefix_later_ttft_ms_p50": median(ttft[False]) if ttft[False] else None}


@dataclass(frozen=True)
class TraceRow:
    at_s: float
    input_tokens: int
    output_tokens: int
    blocks: tuple[int, ...] = ()


def _mooncake(line: str, where: str) -> TraceRow:
    try:
        item = json.loads(line)
        at, n_in, n_out = float(item["timestamp"]) / 1000, int(item["input_length"]), int(item["output_length"])
        blocks = tuple(int(h) for h in item.get("hash_ids") or ())
    except (ValueError, KeyError, TypeError):
        raise BadTraffic(f"{where}: not a Mooncake row (timestamp in ms, input_length, output_length, hash_ids)") \
            from None
    return TraceRow(at, n_in, n_out, blocks)


def _rows(path: Path) -> Iterator[tuple[str, Callable[[], TraceRow]]]:
    """Each row with where it is ('--trace FILE line N') and how to read it: a row is parsed only when it is taken
    (the rows after the last one replayed are never parsed, and the file is read a line at a time)."""
    with open(path, newline="", encoding="utf-8") as f:
        first = f.readline()
        if first.lstrip().startswith("{"):
            for number, line in enumerate(itertools.chain([first], f), 1):
                if line.strip():
                    where = f"--trace {path} line {number}"
                    yield where, lambda line=line, where=where: _mooncake(line, where)
            return
        header = next(csv.reader([first]), [])
        if not all(name in header for name in _BURSTGPT):
            raise BadTraffic(f"--trace {path}: neither Mooncake's JSON lines nor BurstGPT's CSV (its header names "
                             f"{', '.join(_BURSTGPT)})")
        columns = [header.index(name) for name in _BURSTGPT]
        for number, cells in enumerate(csv.reader(f), 2):
            if cells:
                where = f"--trace {path} line {number}"
                yield where, lambda cells=cells, where=where: _burstgpt(cells, columns, where)


def _burstgpt(cells: list[str], columns: list[int], where: str) -> TraceRow:
    at, n_in, n_out = columns
    try:
        return TraceRow(float(cells[at]), int(float(cells[n_in])), int(float(cells[n_out])))
    except (ValueError, IndexError):
        raise BadTraffic(f"{where}: not a BurstGPT row (Timestamp, Request tokens, Response tokens)") from None


@dataclass(frozen=True)
class Traffic:
    """The traffic's shape beside the arguments, parsed and read before the run (cli.main) for the sweep."""
    prefix: SharedPrefix | None = None       # --shared-prefix, parsed
    multi: MultiTurn | None = None           # --multi-turn, parsed
    trace: list[TraceRow] | None = None      # --trace's rows, read and checked
    trace_cut: bool = False                  # the file had more rows than those kept


def read_trace(path: Path, rows_max: int | None) -> tuple[list[TraceRow], bool]:
    """The first ``rows_max`` rows (TRACE_ROWS when None), times from the first row's; whether the file had more.
    BadTraffic names a row whose time is negative or earlier than the row before, or lengths under 0."""
    cap = rows_max or TRACE_ROWS
    found: list[TraceRow] = []
    try:
        for where, parse in _rows(path):
            if len(found) == cap:
                return _from_zero(found), True
            row = parse()
            if row.at_s < 0 or row.input_tokens < 0 or row.output_tokens < 0:
                raise BadTraffic(f"{where}: a negative time or length ({row.at_s:g} s, {row.input_tokens} in, "
                                 f"{row.output_tokens} out)")
            if found and row.at_s < found[-1].at_s:
                raise BadTraffic(f"{where}: its time {row.at_s:g} s is before the row above ({found[-1].at_s:g} s): "
                                 "a trace is replayed in time order (sort it by its time first)")
            found.append(row)
    except OSError as exc:
        raise BadTraffic(f"--trace {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadTraffic(f"--trace {path}: not UTF-8 text") from None
    if not found:
        raise BadTraffic(f"--trace {path}: no row in it")
    return _from_zero(found), False


def _from_zero(rows: list[TraceRow]) -> list[TraceRow]:
    t0 = rows[0].at_s
    return [TraceRow(r.at_s - t0, r.input_tokens, r.output_tokens, r.blocks) for r in rows]


def trace_requests(rows: Sequence[TraceRow], seed: int) -> list[Request]:
    """Each row a synthetic prompt of its input length; rows whose hash ids agree share those blocks' text, so a
    prefix cache meets the trace's own sharing."""
    blocks: dict[int, list[str]] = {}
    asked = []
    for i, row in enumerate(rows):
        words: list[str] = []
        for h in row.blocks:
            if len(words) >= row.input_tokens:
                break
            words += blocks.setdefault(h, _words(random.Random(seed * 1_000_003 + h), MOONCAKE_BLOCK))
        rng = random.Random(seed + i)
        words = (words + [str(i)] + _words(rng, row.input_tokens))[:max(1, row.input_tokens)]
        asked.append(Request(" ".join(words), max(1, row.input_tokens), max(1, row.output_tokens)))
    return asked
