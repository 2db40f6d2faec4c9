"""What a run's measured rate costs at the user's price per hour: per ImageNet-1k epoch, per million tokens, per run.
UI-free; the report's cost section, summary.json and compare's prices read it."""

from __future__ import annotations

from tui.report.summary import WorkloadSummary, _first
from workloads.facts.missing import finite_or_none
from workloads import registry

# ImageNet-1k's training set: the epoch a reader has in mind when comparing images/s across cards
IMAGENET_TRAIN_IMAGES = 1_281_167


def cost(summary: WorkloadSummary, price_per_hour: float) -> dict[str, float | None]:
    """What the measured rate costs at the user's price: per epoch and per million tokens."""
    out: dict[str, float | None] = {}
    per_s = price_per_hour / 3600.0
    m = summary.metrics
    basis = registry.spec_for(summary.workload).cost_basis
    if basis == "images" or (basis is None and (summary.throughput.unit or "").startswith("images")):
        rate = summary.headline
        images = _first(*(finite_or_none(v) for v in (m.get("images_per_epoch"), m.get("epoch_size"),
                                               summary.config.get("epoch_size"), m.get("dataset_size"),
                                               summary.config.get("dataset_size"))))
        epoch_s = finite_or_none(m.get("epoch_s"))
        if epoch_s is None and images and rate:
            epoch_s = images / rate
        out["run_epoch_images"] = images
        out["run_epoch_s"] = epoch_s
        out["cost_per_run_epoch"] = epoch_s * per_s if epoch_s else None
        out["imagenet_epoch_s"] = IMAGENET_TRAIN_IMAGES / rate if rate else None
        out["cost_per_imagenet_epoch"] = IMAGENET_TRAIN_IMAGES / rate * per_s if rate else None
    if basis == "tokens" or (basis is None and (summary.throughput.unit or "").startswith("tokens")):
        rate = _first(finite_or_none(m.get("aggregate_tokens_per_s")), finite_or_none(m.get("tokens_per_s")),
                      summary.throughput.median)
        out["tokens_per_s_priced"] = rate
        out["cost_per_million_tokens"] = 1e6 / rate * per_s if rate else None
    if summary.duration_s is not None:
        out["cost_of_run"] = summary.duration_s * per_s
    return out
