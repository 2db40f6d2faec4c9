"""`cardbench ready --against BUNDLE`: this card's readiness read against the same command's on a reference card.

The reference is a report bundle (.zip) or a run directory that `cardbench ready` made (its ``readiness.json``), read
within compare's caps (`tui.compare.bundle_reader`). One of another model or dtype is refused, naming the difference:
the ratio of two different questions is no answer. Each figure both sides measured gets its ratio (this card over the
reference); the speeds (prefill, decode, fine-tune) together with the two prices give the price-performance row, so
"75-80 % of the reference at 55-60 % of the price" is one line.
"""

from __future__ import annotations

import math
from pathlib import Path

from tui.compare.bundle_reader import Budget, BundleInputError, Cap, check_input, open_zip, read_member
from tui.compare.prices import unit_name
from tui.i18n.voice import quoted
from tui.ready.readiness import Readiness, ReadinessError, parse, read_dir
from tui.ready.rows import PASS, WARN, Row, not_measured, words
from tui.ready.table import value
from workloads.catalogue import LANGS, say
from workloads.facts.formatting import format_number, percent
from workloads.facts.missing import NA
from workloads.rundir import READINESS

CAP_READINESS = Cap(1 << 20, "a readiness.json")   # a few kB: eight rows in two languages
NO_SIDE = "-"   # a row read against the reference carries no verdict of its own; the price row does
COMPARED = ("prefill", "decode", "finetune", "cold_start", "data_io")


class AgainstError(Exception):
    """--against refused: the words for one line (exit 2)."""


def load(path: Path) -> Readiness:
    """The readiness in a bundle or run directory; AgainstError when there is none or it cannot be read."""
    try:
        found = _from_dir(path) if check_input(path) == "dir" else _from_zip(path)
    except (BundleInputError, ReadinessError) as exc:
        raise AgainstError(f"--against {path} {exc}") from None
    if found is None:
        raise AgainstError(f"--against {path} holds no {READINESS}: give a bundle or a run directory that "
                           "`cardbench ready` made on the reference card")
    return found


def _from_dir(path: Path) -> Readiness | None:
    """A run directory's own, else the first run's in an unzipped bundle (logs/<run>/readiness.json)."""
    own = read_dir(path)
    if own is not None:
        return own
    for candidate in sorted(path.glob(f"logs/*/{READINESS}")) + sorted(path.glob(f"*/logs/*/{READINESS}")):
        found = read_dir(candidate.parent)
        if found is not None:
            return found
    return None


def _from_zip(path: Path) -> Readiness | None:
    with open_zip(path) as zf:
        members = sorted((i for i in zf.infolist() if i.filename.endswith(f"/logs/{READINESS}") or
                          (i.filename.endswith(f"/{READINESS}") and "/logs/" in i.filename)),
                         key=lambda i: i.filename)
        if not members:
            return None
        return parse(read_member(zf, members[0], CAP_READINESS, Budget()))


def refuse_other(reference: Readiness, model: str, dtype: str | None, where: Path) -> None:
    """AgainstError naming what differs, when the reference answered another model or dtype (``dtype`` None: not
    known yet, checked once it is)."""
    differs = []
    if reference.model != model:
        differs.append(f"the model ({reference.model} there, {model} here)")
    if dtype is not None and reference.dtype != dtype:
        differs.append(f"the dtype ({reference.dtype} there, {dtype} here)")
    if differs:
        raise AgainstError(f"--against {where} is a readiness of {reference.model} in {reference.dtype}; "
                           f"{' and '.join(differs)} {'differ' if len(differs) > 1 else 'differs'}: run the same "
                           "`cardbench ready` on both cards")


def against_rows(here: Readiness, reference: Readiness) -> list[Row]:
    """Each figure of the card's speed both measured (the fit and the op count of one model are the same on any
    card that holds it), this card's over the reference's; then the price-performance row."""
    rows = []
    for mine in here.rows:
        theirs = reference.row(mine.question)
        if (mine.question not in COMPARED or mine.measured is None or theirs is None or theirs.measured is None
                or mine.unit != theirs.unit):
            continue
        key = "ready.against.figure_lower" if mine.lower_is_better else "ready.against.figure_higher"
        evidence = {lang: say(key, lang, here=value(mine.measured, mine.unit, lang),
                              there=value(theirs.measured, theirs.unit, lang)) for lang in LANGS}
        rows.append(Row(mine.question, NO_SIDE, evidence, mine.measured, theirs.measured, mine.unit,
                        mine.lower_is_better, mine.speed))
    return rows + [price_row(rows, here, reference)]


def span(ratios: list[float]) -> str:
    """'75-80 %' (the seed's form), or '78 %' when they round alike."""
    low, high = round(min(ratios) * 100), round(max(ratios) * 100)
    return f"{low} %" if low == high else f"{low}-{high} %"


def price_row(compared: list[Row], here: Readiness, reference: Readiness) -> Row:
    """The speeds' ratios (their range and geometric mean) over the price ratio: performance per unit of price
    against the reference's. N/A without both prices, or with prices in two currencies."""
    ratios = [r.ratio for r in compared if r.speed and r.ratio is not None and r.ratio > 0]
    if not ratios:
        return not_measured("price", words("why.no_speed"))
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    if not here.price_per_hour or not reference.price_per_hour:
        return not_measured("price", words("why.no_price", span=span(ratios)))
    if here.currency.upper() != reference.currency.upper():
        return not_measured("price", words("why.currencies", here=quoted(here.currency),
                                           there=quoted(reference.currency)))
    price = here.price_per_hour / reference.price_per_hour
    evidence = {lang: words("against.price", span=span(ratios), n=len(ratios), mean=percent(mean, 0), price=percent(price, 0),
                            ppp=format_number(mean / price, 3), device=quoted(reference.device or NA),
                            unit=unit_name(here.currency, lang))[lang] for lang in LANGS}
    return Row("price", PASS if mean / price >= 1.0 else WARN, evidence, mean, price, "fraction", speed=False)
