"""llm's ``--cold-start``: the time from a fresh process to the first token, phase by phase, and nothing else.

The workload's process stays torch-free (`workloads.cold_start.run`): a preparing child picks the device and dtype
and writes a preset's weights; the measured child is ``python -m workloads.llm.cold_child``, the first cell's prompt
(its batch and input length, or --prompt's tokens) its first token's. ``--cold-start warm`` reads the weights once
before, for the read to compare with.
"""

from __future__ import annotations

import argparse
from typing import Any

from workloads.child.harness import Emitter
from workloads.cold_start.run import ColdStart, said
from workloads.llm import table
from workloads.llm.plan import Plan
from workloads.llm.result_record import LlmResult

CHILD = "workloads.llm.cold_child"


def request_of(args: argparse.Namespace, plan: Plan) -> dict[str, Any]:
    """What the child builds and runs: the model, the device and dtype asked for, the first cell's prompt."""
    first = plan.cells[0]
    return {"model": args.model, "device": args.device, "dtype": args.dtype, "seed": args.seed,
            "compile": args.compile, "cuda_graphs": args.cuda_graphs, "input_len": first.input_len,
            "batch": first.batch, "prompt_ids": list(plan.prompt_ids) if plan.prompt_ids else None}


def _config(args: argparse.Namespace, plan: Plan, prepared: dict[str, Any]) -> dict[str, Any]:
    c, first = plan.config, plan.cells[0]
    return {"model_size": plan.model, "family": c.family, "cold_start": args.cold_start,
            "weights": str(args.weights) if args.weights else f"random (seed {args.seed}), written to a scratch file",
            "layers": c.num_hidden_layers, "hidden": c.hidden_size, "parameters": c.parameter_count(),
            "input_len": first.input_len, "batch_size": first.batch, "dtype": prepared.get("dtype"),
            "device": prepared.get("device"), "cuda_graphs": args.cuda_graphs, "compile": args.compile}


def run(emitter: Emitter, args: argparse.Namespace, plan: Plan, workload: str) -> int:
    """The cold start measured and sent as the result; a child that failed is said after what it measured."""
    with ColdStart(CHILD, request_of(args, plan), args.weights, args.cold_start) as cold:
        prepared = cold.prepare()
        emitter.start(workload, _config(args, plan, prepared), str(prepared.get("device_name")),
                      prepared.get("versions") or {})
        for name, error in prepared.get("skipped") or []:
            emitter.fallback(error=f"{name} does not run on {prepared.get('device')}: {error}", action="next dtype",
                             op=name)
        metrics = cold.measure()
    first = plan.cells[0]
    metrics.update(model_size=plan.model, sweep="off", input_len=first.input_len, batch_size=first.batch,
                   dtype=prepared.get("dtype"), parameters=plan.config.parameter_count())
    emitter.result(LlmResult.of(metrics))
    return said(cold.error, table.lines(metrics))
