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
from tui.report.cost import cost

# the currency's unit as the verdict names it ("per yuan"); other codes are named as given
UNITS: dict[str, tuple[str, str]] = {
    "CNY": ("yuan", "元"), "RMB": ("yuan", "元"), "USD": ("dollar", "美元"), "EUR": ("euro", "欧元"),
    "JPY": ("yen", "日元"), "GBP": ("pound", "英镑"), "HKD": ("Hong Kong dollar", "港元"),
}


def unit_name(currency: str | None, lang: str = "en") -> str:
    code = (currency or "").upper()
    pair = UNITS.get(code)
    return (pair[1] if lang == "zh" else pair[0]) if pair else (currency or "currency unit")


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
        if lang == "zh":
            same = "；两者吞吐量在误差内相当，差别在价格" if self.same_speed and self.uncertainty else ""
            return (f"{self.compared} 的 {self.workload_title} 吞吐量是 {self.baseline} 的 {tp}{tp_pm} %，价格是其 "
                    f"{price} %：每{unit}性能为 {ppp:.2f}{ppp_pm} 倍{same}")
        same = ("; the throughputs are the same within the noise, so the difference is the price"
                if self.same_speed and self.uncertainty else "")
        return (f"{self.compared} reaches {tp}{tp_pm} % of {self.baseline}'s {self.workload_title} throughput at "
                f"{price} % of its price: {ppp:.2f}{ppp_pm}x the performance per {unit}{same}")


def verdict(compared_label: str, baseline_label: str, title: str, throughput_ratio: float | None,
            compared_price: float | None, baseline_price: float | None, currency: str,
            uncertainty: float | None = None) -> Verdict | None:
    if throughput_ratio is None or not compared_price or not baseline_price:
        return None
    return Verdict(compared_label, baseline_label, title, throughput_ratio, compared_price / baseline_price, currency,
                   uncertainty)
