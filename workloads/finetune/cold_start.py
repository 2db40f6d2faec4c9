"""finetune's ``--cold-start``: the time from a fresh process to the first optimizer step's loss, phase by phase, and
nothing else.

The workload's process stays torch-free (`workloads.cold_start.run`): a preparing child resolves the device and
writes a preset's weights; the measured child is ``python -m workloads.finetune.cold_child``, whose one step is a
synthetic batch of ``--batch-size`` x ``--seq-len`` tokens in one micro-batch (as ``--grad-accum 1``), with the run's
mode, adapters, --amp and --compile. One process: ``--gpus`` and ``--check-against-cpu`` are refused with it.
"""

from __future__ import annotations

from typing import Any

from workloads.child.harness import Emitter, WorkloadError, log
from workloads.cold_start import table
from workloads.cold_start.run import ColdStart, said
from workloads.finetune import fit_only
from workloads.finetune.result_record import FinetuneResult
from workloads.models.llama.presets import LlamaConfig

CHILD = "workloads.finetune.cold_child"


def check(args: Any) -> None:
    """What --cold-start cannot be run with: one line, exit 2, before anything runs."""
    if args.gpus is not None or args.check_against_cpu is not None:
        flag = "--gpus" if args.gpus is not None else "--check-against-cpu"
        raise WorkloadError(f"--cold-start and {flag} are exclusive", hint="a cold start is one fresh process")


def request_of(args: Any) -> dict[str, Any]:
    lr = args.lr or (1e-4 if args.mode == "full" else 1e-3)   # as a run's (workloads.finetune.step.Setup)
    return {"model": args.model, "device": args.device, "dtype": "fp32", "seed": args.seed, "compile": args.compile,
            "batch": args.batch_size, "seq_len": args.seq_len, "lr": lr,
            "lora": {"mode": args.mode, "amp": args.amp, "lora_target_names": list(args.lora_target_names),
                     "lora_rank": args.lora_rank, "lora_alpha": args.lora_alpha, "lora_dropout": args.lora_dropout}}


def run(emitter: Emitter, args: Any, config: LlamaConfig, workload: str) -> int:
    """The cold start measured and sent as the result; a child that failed is said after what it measured."""
    name = args.model if args.weights is None else str(args.weights)
    with ColdStart(CHILD, request_of(args), args.weights, args.cold_start) as cold:
        prepared = cold.prepare()
        emitter.start(workload, {"model_size": name, "mode": args.mode, "amp": args.amp, "compile": args.compile,
                                 "cold_start": args.cold_start, "batch_size": args.batch_size, "seq_len": args.seq_len,
                                 "parameters": config.parameter_count(), "device": prepared.get("device")},
                      str(prepared.get("device_name")), prepared.get("versions") or {})
        if args.data is not None or args.grad_accum > 1:
            log("cold start: the first step is one synthetic micro-batch (--data and --grad-accum are not used)")
        metrics = cold.measure()
    metrics.update(first_loss=cold.notes.get("first_loss"), model_size=name, mode=args.mode, seq_len=args.seq_len,
                   batch_size=args.batch_size, precision_requested=fit_only.AMP_DTYPE[args.amp], parameters=config.parameter_count())
    emitter.result(FinetuneResult.of(metrics))
    return said(cold.error, table.lines(metrics, "step"))
