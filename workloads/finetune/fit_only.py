"""finetune's ``--fit-only``: the plan (`workloads.models.llama.fit_plan`) of this fine-tune's shape (a device's
micro-batch of ``--seq-len`` tokens, in ``--amp``'s dtype) against the cards and size asked for
(`workloads.models.llama.fit_args`) or this device's free memory now; nothing is built or trained.

The table is llm's (one estimate: the LoRA row is the adapters `workloads.finetune.lora` builds), so `cardbench run
finetune --fit-only` and `cardbench fit` agree on every use.
"""

from __future__ import annotations

from typing import Any

from workloads.child.harness import Emitter, log
from workloads.finetune.result_record import FinetuneResult
from workloads.models.llama import fit_args, fit_plan, fit_table
from workloads.models.llama.fit_plan import Ask
from workloads.models.llama.presets import LlamaConfig, preset_name

AMP_DTYPE = {"off": "fp32", "fp16": "fp16", "bf16": "bf16"}


def figures(args: Any, config: LlamaConfig, free: int | None, cpu: bool = False) -> dict[str, Any]:
    """The result of a --fit-only run: the plan's figures beside the run's shape."""
    dtype = AMP_DTYPE[args.amp]
    micro = max(1, args.batch_size // args.grad_accum)
    ask = Ask(config, preset_name(config) if args.weights else args.model, dtype, 4 if dtype == "fp32" else 2,
              micro, args.seq_len, args.seq_len)
    out = fit_plan.plan(ask, fit_args.targets(args, dtype, free, cpu), args.price_per_hour,
                        args.currency if args.price_per_hour else None)
    return {**out, "model_size": ask.model, "mode": args.mode, "seq_len": args.seq_len,
            "batch_size": args.batch_size, "micro_batch_size": micro, "grad_accum": args.grad_accum,
            "precision": dtype, "parameters": config.parameter_count()}


def run(emitter: Emitter, args: Any, config: LlamaConfig) -> int:
    """Plan and say it: against a named card or size without touching a device (or importing torch), else against
    this device's free memory now."""
    config_event = {"model_size": args.model, "mode": args.mode, "fit_only": True, "seq_len": args.seq_len,
                    "batch_size": args.batch_size, "total_steps": 0}
    cpu = False
    if fit_args.named(args):
        emitter.start("finetune", config_event, fit_args.NO_DEVICE, fit_args.versions())
        free = None
    else:
        from workloads.child import device as devices  # lazy: torch, for the device's name and free memory

        device = devices.resolve(args.device)
        emitter.start("finetune", config_event, devices.name(device), devices.versions())
        free, cpu = devices.free_bytes(device), device.type == "cpu"
    metrics = figures(args, config, free, cpu)
    for line in fit_table.lines(metrics):
        log(line)
    emitter.result(FinetuneResult.of(metrics))
    return 0
