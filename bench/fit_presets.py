"""The README's table of the fit for each published preset (torch-free, instant: the plan of `cardbench fit`).

    .venv/bin/python bench/fit_presets.py

Each preset in bf16 against a card of 32 GiB and one of 80 GiB (``--memory 32GB --memory 80GB``: a card's whole
memory, so its driver context and allocator share are counted):

- inference: batch 1 x 4,096 positions (a 3,968-token prompt prefilled at once, 128 out), the plan's total;
- the largest batch of those 4,096 positions each card holds;
- AdamW full and LoRA r16 with activation checkpointing, batch 1 x 2,048 tokens, the plan's totals;
- the cards of each size AdamW full needs, the work split evenly (FSDP).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloads.facts.formatting import format_bytes  # noqa: E402
from workloads.facts.memory_size import memory_size  # noqa: E402
from workloads.models.llama import fit_plan  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402

SIZES = ("32GB", "80GB")
COLUMNS = ("preset", "weights", "inference, 1 x 4096", "largest batch at 4096, 32 GB / 80 GB",
           "AdamW full, 1 x 2048", "LoRA r16 + checkpointing, 1 x 2048", "cards for AdamW full, 32 GB / 80 GB")


def row(name: str) -> list[str]:
    config = PRESETS[name]
    targets = [fit_plan.Target(size, "size", memory_size(size)) for size in SIZES]
    inference = fit_plan.plan(fit_plan.Ask(config, name, "bf16", 2, 1, 4096, 4096 - 128), targets)
    training = fit_plan.plan(fit_plan.Ask(config, name, "bf16", 2, 1, 2048, 2048), targets)
    use = {r["use_id"]: r for r in inference["fit"]}
    train = {r["use_id"]: r for r in training["fit"]}
    largest = " / ".join(str(v["largest_batch"]) for v in use["inference"]["targets"])
    cards = " / ".join(str(v["cards"]) for v in train["full"]["targets"])
    return [name, format_bytes(use["inference"]["weights_bytes"]), format_bytes(use["inference"]["total_bytes"]),
            largest, format_bytes(train["full"]["total_bytes"]),
            format_bytes(train["lora_checkpointing"]["total_bytes"]), cards]


def main() -> int:
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + " --- |" * len(COLUMNS))
    for name in PRESETS:
        if name != "tiny":
            print("| " + " | ".join(row(name)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
