"""Llama-family inference readiness: TTFT, TPOT, tokens/s and peak memory per cell, pp/tg, and the fit.

Run as ``python -m workloads.llm [options]`` (or ``cardbench run llm``). One cell (``--input-len``,
``--output-len``, ``--batch-size``) or ``--sweep`` over lists of each; then llama-bench's pp/tg with
their spread, at each ``--depth`` (``--pp N,N --tg N,N --depth D,D -r N``, printed as llama-bench's markdown or
``--output``'s format); each figure beside its bound (:mod:`~workloads.llm.cells`). A preset with random weights
by default, nothing downloaded; ``--weights DIR`` loads a local Hugging Face checkpoint.
``--prompt TEXT`` (with ``--weights``) is the one cell's prompt, and its greedy continuation is logged.
``--fit-only`` prints the memory estimate (inference and training) against the device and stops;
``--cold-start`` measures the time from a fresh process to the first token, phase by phase, and stops
(:mod:`~workloads.llm.cold_start`).

Events: ``start``; one ``step`` per cell (its decode tokens/s over all sequences); ``fallback`` when
CUDA graphs or compile cannot run (once; the decode goes on eager); one ``result`` whose ``cells`` and
llama-bench ``bench`` rows the report shows as tables. The decode step is compiled by default on a GPU.
Arguments are checked before torch is imported (:mod:`~workloads.llm.plan`), so bad input is one
line and exit 2 before a run directory exists.
"""

from __future__ import annotations

import os
from typing import Sequence

from workloads.child import cpu_fallback_option
from workloads.child.harness import ArgumentParser, Emitter, arguments_checked, positive_int
from workloads.facts.formatting import format_bytes
from workloads.llm import bench_tests, fit_only
from workloads.llm.output_option import write
from workloads.cold_start import option as cold_start_option
from workloads.models.llama import fit_args
from workloads.llm.plan import identity, int_list, make_plan
from workloads.models.llama.presets import known_models
from workloads.llm.result_record import LlmResult

WORKLOAD = "llm"


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Llama-family prefill/decode readiness against the card's bounds.")
    p.add_argument("--model", default="tiny", metavar="PRESET", help=f"one of {known_models()} (default tiny)")
    p.add_argument("--weights", metavar="DIR", type=_path, default=None,
                   help="a local Hugging Face checkpoint directory (its config.json wins over --model)")
    p.add_argument("--prompt", metavar="TEXT", default=None,
                   help="prompt text, tokenized with the --weights dir's tokenizer.json: one cell, its greedy "
                        "output written to the log")
    p.add_argument("--input-len", dest="input_len_list", type=int_list, default=None, metavar="N[,N...]",
                   help="prompt tokens (default 128; with --sweep 128,1024,2048, on the CPU 32,128)")
    p.add_argument("--output-len", dest="output_len_list", type=int_list, default=None, metavar="N[,N...]",
                   help="generated tokens (default 128; with --sweep 128,1024, on the CPU 16,64)")
    p.add_argument("--batch-size", dest="batch_list", type=int_list, default=None, metavar="N[,N...]",
                   help="sequences at once (default 1; with --sweep 1,8,32, on the CPU 1,4)")
    p.add_argument("--sweep", action="store_true", help="every input x output x batch combination")
    p.add_argument("--repeat", type=positive_int, default=3, metavar="N", help="timed runs per cell (default 3)")
    p.add_argument("--pp", type=bench_tests.lengths, default=(512,), metavar="N[,N...]",
                   help="llama-bench's prompt processing tests: prefill N tokens (default 512; 0: none)")
    p.add_argument("--tg", type=bench_tests.lengths, default=(128,), metavar="N[,N...]",
                   help="llama-bench's text generation tests: decode N tokens (default 128; 0: none)")
    p.add_argument("--depth", type=bench_tests.depths, default=(0,), metavar="D[,D...]",
                   help="run each pp and tg test with D tokens already in the KV cache (llama-bench's -d; "
                        "default 0), e.g. 0,4096,16384 where the model's context allows")
    p.add_argument("-r", "--repetitions", type=positive_int, default=5, metavar="N",
                   help="pp and tg repetitions for mean +- stddev (default 5)")
    p.add_argument("--output", default=None, metavar="md|csv|json|jsonl|FILE",
                   help="llama-bench's table on the terminal in this format (default md), or written to FILE "
                        "(.md, .csv, .json or .jsonl) when the run ends")
    p.add_argument("--dtype", choices=["auto", "fp32", "fp16", "bf16"], default="auto",
                   help="weights and cache dtype (auto: fp32 on the CPU, else bf16, else fp16)")
    p.add_argument("--device", default="auto", help="cuda, cuda:1, cpu, ... (default: first accelerator)")
    p.add_argument("--cuda-graphs", action="store_true",
                   help="capture each decode step as a CUDA graph (default on a GPU: --compile, which uses them)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the whole decode step over a static KV cache (default on a GPU; on the CPU "
                        "only when asked)")
    p.add_argument("--eager", action="store_true", help="decode eager, even on a GPU")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and prompts (default 0)")
    cpu_fallback_option.add_argument(p, what="decode steps after the timed cells")
    p.add_argument("--fit-only", action="store_true",
                   help="print the memory plan (inference, LoRA and full training) against the device, or the "
                        "--card / --memory given; run nothing")
    fit_args.add_arguments(p)
    cold_start_option.add_argument(p, "token", "first token")
    return p


def _path(text: str):
    from pathlib import Path

    return Path(text)


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")  # as generate: 2 MB pages stream weights faster on the CPU
    args = build_parser().parse_args(argv)
    if args.cold_start:   # a cold start ends at its first token: no pp/tg, one decode step's room (its compile's)
        args.pp = args.tg = ()   # llama-bench's "0: no such test"
        args.output_len_list = (2,)
    plan = make_plan(args, on_cpu=False)
    if fit_args.refusal(args):
        from workloads.child.harness import WorkloadError

        raise WorkloadError(fit_args.refusal(args), hint="add --fit-only, or leave them out to measure this device")
    if args.cuda_graphs + args.compile + args.eager > 1:
        from workloads.child.harness import WorkloadError

        raise WorkloadError("--compile, --cuda-graphs and --eager are exclusive",
                            hint="--compile already uses CUDA graphs on a GPU")
    if args.cold_start and args.fit_only:
        from workloads.child.harness import WorkloadError

        raise WorkloadError("--cold-start and --fit-only are exclusive", hint="each is a run of its own")
    arguments_checked()
    if args.fit_only and fit_args.named(args):   # cards or a size named: a plan, no device, no torch
        return fit_only.run_named(emitter, args, plan)
    if args.cold_start:   # torch stays out of this process: the cold start is a fresh one's
        from workloads.llm import cold_start

        return cold_start.run(emitter, args, plan, WORKLOAD)

    import torch

    from workloads.child import device as dev
    from workloads.models import inference_dtype
    from workloads.llm import run
    from workloads.models.llama import fit

    device = dev.resolve(args.device)
    plan = make_plan(args, on_cpu=device.type == "cpu")
    dtype_name, skipped = inference_dtype.pick(args.dtype, device)
    element_size = inference_dtype.DTYPES[dtype_name].itemsize
    emitter.start(WORKLOAD, run.config_event(args, plan, device, dtype_name), dev.name(device), dev.versions())
    for name, error in skipped:
        emitter.fallback(error=f"{name} does not run on {device}: {error}", action="next dtype", op=name)
    free = dev.free_bytes(device)
    fitted = fit_only.figures(args, plan, dtype_name, element_size, free, device.type == "cpu")
    fit_only.log_table(fitted)
    if args.fit_only:
        emitter.result(LlmResult.of({**identity(plan), "dtype": dtype_name, **fitted}))
        return 0
    smallest = min(fit.inference(plan.config, c.batch, c.context, c.input_len, element_size).total for c in plan.cells)
    if free is not None and smallest > free:  # refused before the model takes memory: no cell could run
        from workloads.child.harness import WorkloadError

        raise WorkloadError(f"{plan.model} in {dtype_name} needs about {format_bytes(smallest)} for its smallest cell "
                            f"(weights {format_bytes(fitted['fit'][0]['weights_bytes'])}); {device} has "
                            f"{format_bytes(free)} "
                            "free",
                            hint="a smaller preset, --dtype bf16, or --fit-only for the estimate alone")
    torch.manual_seed(args.seed)
    metrics = run.measure(args, plan, device, inference_dtype.DTYPES[dtype_name], emitter, free)
    metrics.update(dtype=dtype_name, **fitted)
    emitter.result(LlmResult.of(metrics))
    run.log_summary(metrics)
    unwritten = write(metrics.get("bench") or [], plan.output)  # after the result: a failed write loses no figure
    if unwritten:
        emitter.warning(f"{unwritten}; the rows are in the result", code="output_unwritten")
    return 0
