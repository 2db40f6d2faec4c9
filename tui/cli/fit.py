"""`cardbench fit MODEL|--weights DIR`: plan a model on a card before renting it (issue 40 item 4).

    cardbench fit Qwen2.5-7B --card "Ascend 910B3" --card "NVIDIA A100 80GB" --input-len 4096
    cardbench fit Llama-3.1-8B --memory 32GB --price-per-hour 2.5
    cardbench fit --weights ./my-model                     against this device's free memory now

It is ``cardbench run llm --fit-only`` with the plan's options: the run is recorded like any other, so the tables
printed here are the ones its report and bundle show (`cardbench export --run DIR`): the estimate, the verdicts and
bounds a target, the runtime's lines (`workloads.models.llama.fit_table`), each inside 120 columns for two cards. The cards and the size are
checked here before anything starts (an unknown card lists the close names; ``--memory 0`` or ``32XB`` is one line),
exit 2; the model and the lengths by the workload's own check. Light at import: argparse and the torch-free facts.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from workloads import exit_codes
from workloads.models.llama.fit_args import card_argument, memory_argument, price_argument
from workloads.models.llama.presets import known_models, preset

NAME = "fit"
WORKLOAD = "llm"


def _as_given(argument):
    """The workload's own type= check (`fit_args`), keeping the text: the workload reads the same table again."""
    def parse(text: str) -> str:
        argument(text)
        return text
    return parse


def _whole(text: str) -> str:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number of 1 or more")
    return text


def add_parser(sub: Any) -> None:
    p = sub.add_parser(NAME, help="plan a model on a card before renting it: inference, LoRA, full; batch x "
                                  "context; cards needed; decode and prefill bounds",
                       description="Estimate a Llama-family model's memory for inference, LoRA and full fine-tuning "
                                   "(with and without activation checkpointing) against cards of rated.csv, a size, "
                                   "or this device's free memory now: the largest batch at the context, the cards "
                                   "needed, and with a named card the decode and prefill bounds its rated figures "
                                   "give. Three tables: the estimate a use, the verdicts and bounds a target, the "
                                   "runtime's lines. Recorded as a run of `llm --fit-only`; `cardbench export --run "
                                   "DIR` puts them in a report bundle.")
    p.add_argument("model", nargs="?", default=None, help=f"a preset: {known_models()}")
    p.add_argument("--weights", metavar="DIR", help="a local Hugging Face checkpoint directory (config.json only "
                                                    "is read)")
    p.add_argument("--card", dest="fit_cards", action="append", default=[], metavar="NAME",
                   type=_as_given(card_argument), help='a card of rated.csv, repeatable: --card "Ascend 910B3" '
                                                   '--card "NVIDIA A100 80GB"')
    p.add_argument("--memory", dest="fit_memory", action="append", default=[], metavar="SIZE",
                   type=_as_given(memory_argument), help="a card of this memory, repeatable: 32GB, 80GiB (GB read as "
                                                    "GiB, as cards are sold)")
    p.add_argument("--input-len", dest="fit_input", type=_whole, default="128", metavar="N",
                   help="prompt tokens, prefilled at once (default 128)")
    p.add_argument("--output-len", dest="fit_output", type=_whole, default="128", metavar="N",
                   help="generated tokens (default 128)")
    p.add_argument("--batch-size", dest="fit_batch", type=_whole, default="1", metavar="N",
                   help="sequences at once (default 1)")
    p.add_argument("--dtype", dest="fit_dtype", choices=("auto", "fp32", "fp16", "bf16"), default="auto",
                   help="weights and KV cache (auto: bf16 for a named card or size, else this device's)")
    # the report options also after `fit`, as after `export`: SUPPRESS keeps a value given before the command
    p.add_argument("--price-per-hour", type=price_argument, metavar="PRICE", default=argparse.SUPPRESS,
                   help="a card's price an hour: cost per million tokens at the decode bound")
    p.add_argument("--currency", default=argparse.SUPPRESS, help="currency of --price-per-hour (default USD)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    p.add_argument("--runs-dir", metavar="DIR", default=argparse.SUPPRESS, help="where the run is kept")


def workload_args(args: argparse.Namespace) -> list[str]:
    """The `llm --fit-only` arguments the command stands for."""
    out = ["--fit-only", "--input-len", args.fit_input, "--output-len", args.fit_output,
           "--batch-size", args.fit_batch, "--dtype", args.fit_dtype]
    out += ["--model", args.model] if args.model else []
    out += ["--weights", args.weights] if args.weights else []
    for card in args.fit_cards:
        out += ["--card", card]
    for size in args.fit_memory:
        out += ["--memory", size]
    price = getattr(args, "price_per_hour", None)
    if price is not None:
        out += ["--price-per-hour", repr(price), "--currency", getattr(args, "currency", None) or "USD"]
    return out


def _refusal(args: argparse.Namespace) -> str | None:
    if args.model is None and args.weights is None:
        return f"cardbench fit: name a model ({known_models()}) or --weights DIR"
    if args.model is not None and preset(args.model) is None:
        return f"cardbench fit: unknown model {args.model!r}; known: {known_models()}"
    if args.weights is not None and not Path(args.weights).is_dir():
        return f"cardbench fit: --weights {args.weights}: not a directory"
    return None


def run(args: argparse.Namespace) -> int:
    refusal = _refusal(args)
    if refusal:
        print(refusal, file=sys.stderr)
        return exit_codes.BAD_INPUT
    from tui.cli.check_args import check_workload_args
    from tui.cli.errors import CliError
    from tui.cli.run import run_workload

    forwarded = workload_args(args)
    try:
        checked = check_workload_args(WORKLOAD, forwarded)
    except CliError as exc:   # the workload's one line, said as this command's
        raise CliError(str(exc).replace(f"cardbench run {WORKLOAD}:", f"cardbench {NAME}:", 1), exc.code) from None
    if checked is not None:
        return checked
    return asyncio.run(run_workload(WORKLOAD, forwarded, runs_dir=getattr(args, "runs_dir", None),
                                    as_json=args.json))

