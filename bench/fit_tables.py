"""The fit tables issue 40's closing note asks for, as markdown: Qwen2.5-7B and Llama-3.1-8B at 4096 prompt tokens
+ 128 output, batch 1, bf16, against a 32 GB card and an 80 GB one (the A100 80GB of rated.csv, with its decode and
prefill bounds and the cost at --price-per-hour); each model's three tables, as the report has them (the estimate,
the verdicts, the runtime's lines: `workloads.models.llama.fit_table`).

    .venv/bin/python bench/fit_tables.py [--price-per-hour 2] [--lang zh]

The same plan and tables as `cardbench fit MODEL --memory 32GB --card "NVIDIA A100 80GB" --input-len 4096` (torch-free,
instant: nothing is run or recorded).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloads.facts.card import named_card  # noqa: E402
from workloads.facts.memory_size import memory_size  # noqa: E402
from workloads.models.llama import fit_args, fit_plan, fit_table  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402

MODELS = ("Qwen2.5-7B", "Llama-3.1-8B")


def markdown(heading, columns, rows, lang: str) -> list[str]:
    said = [[c(lang) if callable(c) else str(c) for c in row] for row in [columns, *rows]]
    return [f"**{heading(lang)}**", "", "| " + " | ".join(said[0]) + " |",
            "|" + "---|" * len(columns)] + ["| " + " | ".join(r) + " |" for r in said[1:]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="fit_tables", description=__doc__.splitlines()[0])
    p.add_argument("--price-per-hour", type=float, default=2.0, help="a card's price an hour (default 2)")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    args = p.parse_args(argv)
    card = named_card("NVIDIA A100 80GB")
    targets = [fit_plan.Target("32 GiB", "size", memory_size("32GB")), fit_args.card_target(card, "bf16")]
    for model in MODELS:
        ask = fit_plan.Ask(PRESETS[model], model, "bf16", 2, 1, 4096 + 128, 4096)
        for table in fit_table.tables(fit_plan.plan(ask, targets, args.price_per_hour, "USD")):
            for line in markdown(*table, args.lang):
                print(line)
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
