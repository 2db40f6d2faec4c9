"""One readiness, as `cardbench ready` leaves it in each of its runs' directories (``readiness.json``) and in the
report bundle beside them: what was asked (model, dtype, device, budget, price) and the rows. `--against` reads it
back from another card's bundle or run directory, so everything it compares is here, said in both languages."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tui.ready.rows import Row
from workloads.facts.missing import finite_or_none
from workloads.rundir import READINESS

KIND = "cardbench-readiness"
VERSION = 1


class ReadinessError(Exception):
    """A readiness that cannot be read: the words for one line (the caller names the file)."""


@dataclass(frozen=True)
class Readiness:
    model: str
    dtype: str
    device: str
    rows: tuple[Row, ...]
    budget_s: float
    wall_s: float | None = None
    price_per_hour: float | None = None
    currency: str = "USD"
    runs: tuple[str, ...] = ()            # the sub-runs' ids, in the order they ran
    against: tuple[Row, ...] = ()         # with --against: the rows read against the reference
    reference: Mapping[str, Any] = field(default_factory=dict)   # the reference's model, device and price

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "version": VERSION, "model": self.model, "dtype": self.dtype, "device": self.device,
                "budget_s": self.budget_s, "wall_s": self.wall_s, "price_per_hour": self.price_per_hour,
                "currency": self.currency, "runs": list(self.runs), "rows": [r.to_json() for r in self.rows],
                "against": [r.to_json() for r in self.against], "reference": dict(self.reference)}

    @classmethod
    def from_json(cls, data: Any) -> "Readiness":
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ReadinessError("is not a readiness made by `cardbench ready`")
        rows = data.get("rows")
        if not isinstance(rows, list):
            raise ReadinessError("holds no rows")
        return cls(model=str(data.get("model") or ""), dtype=str(data.get("dtype") or ""),
                   device=str(data.get("device") or ""), budget_s=finite_or_none(data.get("budget_s")) or 0.0,
                   rows=tuple(Row.from_json(r) for r in rows if isinstance(r, dict)),
                   wall_s=finite_or_none(data.get("wall_s")),
                   price_per_hour=finite_or_none(data.get("price_per_hour")),
                   currency=str(data.get("currency") or "USD"),
                   runs=tuple(str(r) for r in data.get("runs") or []),
                   against=tuple(Row.from_json(r) for r in data.get("against") or [] if isinstance(r, dict)),
                   reference=data.get("reference") if isinstance(data.get("reference"), dict) else {})

    def row(self, question: str) -> Row | None:
        return next((r for r in self.rows if r.question == question), None)


def write(readiness: Readiness, run_dirs: list[Path]) -> list[str]:
    """``readiness.json`` into each run directory; the ones that could not take it, as 'dir: why'."""
    text = json.dumps(readiness.to_json(), indent=2, ensure_ascii=False) + "\n"
    failed = []
    for run_dir in run_dirs:
        try:
            (run_dir / READINESS).write_text(text, encoding="utf-8")
        except OSError as exc:
            failed.append(f"{run_dir}: {exc.strerror or exc}")
    return failed


def parse(data: bytes) -> Readiness:
    try:
        return Readiness.from_json(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReadinessError(f"is not JSON ({exc})") from None


def read_dir(run_dir: Path) -> Readiness | None:
    """The readiness a run directory holds; None where it has none."""
    path = run_dir / READINESS
    if not path.is_file():
        return None
    try:
        return parse(path.read_bytes())
    except (OSError, ReadinessError):
        return None
