"""Price-performance: what a card's measured rate gives per unit of money, and the one-line verdict.

Prices are per hour of the instance (``--price A=6.5``, else the price its bundle was exported
with). Throughput per currency unit is the work one unit buys at the measured rate:
``rate x 3600 / price per hour`` (images per yuan); cost per epoch and per million tokens are the
report's own (``tui.report.cost.cost``: an ImageNet-1k epoch, a million tokens).

The verdict reads the compared side against the baseline: "B reaches 78 % of A's ResNet-50
throughput at 58 % of its price: 1.34x the performance per yuan", where the last figure is the
throughput ratio over the price ratio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.compare.load import RunFigures
from tui.i18n import say, say_or
from tui.report.cost import cost


def unit_name(currency: str | None, lang: str = "en") -> str:
    """The currency's unit as the verdict names it ("per yuan": the catalogue's ``currency.<code>``); another code as
    given."""
    key = f"currency.{(currency or '').upper()}"
    return say_or(key, lang, currency or "currency unit")


@dataclass(frozen=True)
class PriceFigures:
    """One side's run at its price."""

    price_per_hour: float
    currency: str
    per_currency_unit: float | None       # work units (images, tokens) per currency unit
    cost: dict[str, Any]                  # tui.report.cost.cost's figures


def at_price(run: RunFigures, price_per_hour: float, currency: str) -> PriceFigures:
    rate = run.headline
    per_unit = rate * 3600.0 / price_per_hour if rate is not None and price_per_hour > 0 else None
    return PriceFigures(price_per_hour, currency, per_unit, cost(run.summary, price_per_hour))


@dataclass(frozen=True)
class Verdict:
    compared: str          # the side's label, "B"
    baseline: str          # "A"
    workload_title: str    # "ResNet-50"
    throughput_ratio: float
    price_ratio: float
    currency: str
    uncertainty: float | None = None   # the throughput ratio's ± (tui.compare.ratio), the table's own

    @property
    def performance_per_price(self) -> float:
        return self.throughput_ratio / self.price_ratio

    @property
    def same_speed(self) -> bool:
        """The throughputs are equal within the noise: the table's 'same within ±' said in the sentence too."""
        margin = self.uncertainty or 0.0
        return self.throughput_ratio - margin <= 1.0 <= self.throughput_ratio + margin

    def line(self, lang: str = "en") -> str:
        """The verdict in a sentence, with the ± the table beside it gives; percentages and the factor rounded as
        written, from the unrounded figures."""
        tp, price, ppp = round(self.throughput_ratio * 100), round(self.price_ratio * 100), self.performance_per_price
        spread = self.uncertainty / self.price_ratio if self.uncertainty is not None else None
        tp_pm = f" ± {round(self.uncertainty * 100)}" if self.uncertainty is not None else ""
        ppp_pm = f" ± {spread:.2f}" if spread is not None else ""
        unit = unit_name(self.currency, lang)
        same = say("compare.same_speed", lang) if self.same_speed and self.uncertainty else ""
        return say("compare.price_verdict", lang, compared=self.compared, baseline=self.baseline,
                   workload=self.workload_title, tp=f"{tp}{tp_pm}", price=price, ppp=f"{ppp:.2f}{ppp_pm}", unit=unit,
                   same=same)


def verdict(compared_label: str, baseline_label: str, title: str, throughput_ratio: float | None,
            compared_price: float | None, baseline_price: float | None, currency: str,
            uncertainty: float | None = None) -> Verdict | None:
    if throughput_ratio is None or not compared_price or not baseline_price:
        return None
    return Verdict(compared_label, baseline_label, title, throughput_ratio, compared_price / baseline_price, currency,
                   uncertainty)
