"""llm's fit: the plan (`workloads.models.llama.fit_plan`) for the run's first cell, against the cards and size asked
for (`workloads.models.llama.fit_args`) or this device's free memory; all a ``--fit-only`` run gives, and every
run's log (torch-free)."""

from __future__ import annotations

import argparse
from typing import Any

from workloads.child.harness import Emitter, log
from workloads.llm.plan import Plan, identity
from workloads.llm.result_record import LlmResult
from workloads.models.llama import fit_args, fit_plan, fit_table
from workloads.models.llama.fit_plan import Ask


def figures(args: argparse.Namespace, plan: Plan, dtype: str, element_size: int, free: int | None,
            cpu: bool = False) -> dict[str, Any]:
    """The result's fit figures at the first cell, and llm's largest batch and context on the first target (``cpu``:
    this device's free memory is the host's)."""
    first = plan.cells[0]
    ask = Ask(plan.config, plan.model, dtype, element_size, first.batch, first.context, first.input_len)
    found = fit_args.targets(args, dtype, free, cpu)
    out = fit_plan.plan(ask, found, args.price_per_hour, args.currency if args.price_per_hour else None)
    out.update(free_bytes=free, largest_batch=None, largest_context=None)
    if found:
        inference = out["fit"][0]["targets"][0]
        out.update(largest_batch=inference["largest_batch"], largest_context=out["fit_targets"][0]["longest_context"])
    return out


def log_table(metrics: dict[str, Any]) -> None:
    for line in fit_table.lines(metrics):
        log(line)


def run_named(emitter: Emitter, args: argparse.Namespace, plan: Plan) -> int:
    """--fit-only for the cards or size named: planned in their dtype (auto: bf16), without a device or torch."""
    dtype = fit_args.dtype_for(args, args.dtype)
    first = plan.cells[0]
    emitter.start("llm", {"model_size": plan.model, "fit_only": True, "dtype": dtype, "input_len": first.input_len,
                          "output_len": first.output_len, "batch_size": first.batch, "total_steps": 0},
                  fit_args.NO_DEVICE, fit_args.versions())
    fitted = figures(args, plan, dtype, fit_args.ELEMENT_SIZE[dtype], None)
    log_table(fitted)
    emitter.result(LlmResult.of({**identity(plan), "dtype": dtype, **fitted}))
    return 0
