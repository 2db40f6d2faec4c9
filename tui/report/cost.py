"""What a run's measured rate costs at the user's price per hour: per ImageNet-1k epoch, per million tokens, per run.
UI-free; the report's cost section, summary.json and compare's prices read it.

One figure feeds both the headline and the cost: the run's headline (`WorkloadSummary.headline`), priced by the
basis its result record names (`COST_BASIS`: "images" per epoch, "tokens" per million tokens). A run with no headline
(a fit-only estimate, a run that measured nothing) has no cost at all, and a workload whose record names no basis
(data IO's loader, your own job) is priced by its run's time alone: its rate is not a training or generation rate."""

from __future__ import annotations

from tui.report.summary import WorkloadSummary, _first
from workloads.facts.missing import finite_or_none
from workloads import registry

# ImageNet-1k's training set: the epoch a reader has in mind when comparing images/s across cards
IMAGENET_TRAIN_IMAGES = 1_281_167


def cost(summary: WorkloadSummary, price_per_hour: float) -> dict[str, float | None]:
    """What the measured rate costs at the user's price: per epoch and per million tokens."""
    out: dict[str, float | None] = {}
    rate = summary.headline
    if rate is None or rate <= 0:
        return out   # nothing measured: nothing to price (a fit-only run "cost" 3.87e-05 CNY)
    per_s = price_per_hour / 3600.0
    m = summary.metrics
    basis = registry.spec_for(summary.workload).cost_basis
    if basis == "images":
        images = _first(*(finite_or_none(v) for v in (m.get("images_per_epoch"), m.get("epoch_size"),
                                               summary.config.get("epoch_size"), m.get("dataset_size"),
                                               summary.config.get("dataset_size"))))
        epoch_s = finite_or_none(m.get("epoch_s"))
        if epoch_s is None and images and rate:
            epoch_s = images / rate
        out["run_epoch_images"] = images
        out["run_epoch_s"] = epoch_s
        out["cost_per_run_epoch"] = epoch_s * per_s if epoch_s else None
        out["imagenet_epoch_s"] = IMAGENET_TRAIN_IMAGES / rate
        out["cost_per_imagenet_epoch"] = IMAGENET_TRAIN_IMAGES / rate * per_s
    if basis == "tokens":
        out["tokens_per_s_priced"] = rate   # the headline, named as such beside the cost
        out["cost_per_million_tokens"] = 1e6 / rate * per_s
    if summary.duration_s is not None:
        out["cost_of_run"] = summary.duration_s * per_s
    return out
