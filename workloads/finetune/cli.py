"""Fine-tune the llm workload's Llama-family model: tokens/s, MFU, peak memory against its estimate, loss.

Run as ``python -m workloads.finetune [options]`` (or ``cardbench run finetune``). Full fine-tune or LoRA
(:mod:`~workloads.finetune.lora`) with AdamW over fp32 master weights under autocast; ``--gpus N``
relaunches under torchrun and shards with FSDP2 (:mod:`~workloads.finetune.step`), on resnet50's
data-parallel and multi-node machinery. Options are checked before torch is imported
(:mod:`~workloads.finetune.options`); the run is :mod:`~workloads.finetune.train`. ``--cold-start`` measures
the time from a fresh process to the first step's loss instead (:mod:`~workloads.finetune.cold_start`).

Events: ``start``; one ``step`` per optimizer step (tokens/s, loss, data wait, memory); ``fallback``
when autocast or compile cannot run; one ``result``.
"""

from __future__ import annotations

from typing import Sequence

from workloads.child import data_parallel
from workloads.child.harness import Emitter, arguments_checked
from workloads.finetune.options import WORKLOAD, build_parser, check


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    config = check(args)
    if args.cold_start:
        from workloads.finetune import cold_start

        cold_start.check(args)
        arguments_checked()
        return cold_start.run(emitter, args, config, WORKLOAD)   # torch stays out of this process: a fresh one's
    arguments_checked()
    if args.fit_only:   # the plan alone: nothing built, no ranks started
        from workloads.finetune import fit_only

        return fit_only.run(emitter, args, config)
    code = data_parallel.relaunched(emitter, f"workloads.{WORKLOAD}", args, argv)
    if code is not None:
        return code
    from workloads.finetune.train import run  # lazy: torch, once the options are checked

    return run(emitter, args, config)
