"""finetune's compile: eager, the whole model (``--compile model``) and each decoder block in place (``--compile
block``, PyTorch's regional compilation) side by side (issue 40 item 6).

    .venv/bin/python bench/finetune_compile_regional.py                  # tiny on the CPU, LoRA and full, minutes
    .venv/bin/python bench/finetune_compile_regional.py --device cuda --model Llama-3.2-1B --amp bf16 --seq-len 2048

Each run is ``cardbench run finetune ... --json`` in its own process with its own empty inductor cache
(TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR), so every compile is a cold one. Read from each: the first step's
seconds (where torch.compile compiles), the second's (where the whole model compiles again: ``Llama._training_rope``
fills its table on the first call, which fails the first graph's guard ``self._rope is None``; a block never sees
it), the steady tokens/s (the run's median after ``--warmup`` steps, 2 by default so the recompile is left out),
what the result says ran (``compiled``), any fallback, and the CPU seconds of the run's processes (its compile
workers too: the work a compile costs, less shaken by other processes' load than its wall time). Printed: the table,
then the ratio of block's compile to model's over the first step, over the first two and in CPU seconds beyond the
eager run's (goal: under 1), and the steady tokens/s of block against model.

``--layers N`` runs tiny's shape with N blocks (random weights written to a temporary checkpoint for ``--weights``).

What it printed on the 2-core VM (CPU, 8 steps of 2 x 32 tokens, fp32, gcc for inductor's C++), 2026-12-07, with
other sessions' processes on the same 2 cores (the load average before-after each run in the last column)::

    tiny (4 blocks), load average 5.0 at the start
    mode  compile said   step 1 s  step 2 s   CPU s  tokens/s  x eager       load  fallback
    lora  off     off        3.74      3.49   22.69    147.13     1.00  5.0-4.9
    lora  model   model     47.11      9.67   52.87    138.59     0.94  4.9-4.1
    lora  block   block     26.70      0.06   35.97   1049.62     7.13  4.1-3.5
    full  off     off        0.22      0.15    9.28    465.39     1.00  3.5-3.3
    full  model   model     44.45      8.51   58.99    119.47     0.26  3.3-3.5
    full  block   block     23.52      1.93   34.03    468.82     1.01  3.5-3.7
    lora: block's compile / model's: 0.57 over step 1, 0.47 over steps 1-2, 0.44 in CPU seconds beyond eager's
    full: block's compile / model's: 0.53 over step 1, 0.48 over steps 1-2, 0.50 in CPU seconds beyond eager's

    --layers 16 --modes full (tiny's shape, 16 blocks), load average 3.5
    full  off     off        0.49      0.29   11.75    215.32     1.00  3.5-3.3
    full  model   model     57.58     23.56  114.92     12.17     0.06  3.3-3.9
    full  block   block     28.71      8.68   54.44     54.68     0.25  3.9-3.5
    full: block's compile / model's: 0.50 over step 1, 0.46 over steps 1-2, 0.41 in CPU seconds beyond eager's

Read: the regional compile costs about half the whole model's on tiny, in wall time and in CPU seconds, in both
modes; the same ratio held in a run at load 13-15 (0.52 and 0.25 over step 1, 0.53 and 0.32 in CPU seconds), and one
earlier run at load 9-12 (before the CPU column) had LoRA's block step 1 at 92 s against the model's 67 s. The
whole model pays its compile twice (step 2: the ``_rope`` guard above); LoRA's blocks compile two graphs (the first
block's input, the frozen embedding's, needs no gradient), full's one for all blocks. At 16 blocks the ratio is no
smaller than at 4: inductor compiles a kernel once for identical source, so the whole model's compile grows less
than linearly with its blocks on the CPU. The steady tokens/s columns are not readable at this load (eager's steps
ran 0.13-6 s from one step to the next; a compiled run's median of 6 steps is as shaken); read alone, without
other load and with warm caches, 10 full steps ran about 0.10 s each under block, 0.12-0.13 s under model and
0.16-0.3 s eager.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fit_two_sided import run_cardbench  # noqa: E402 - the same run and JSON read (bench/ is this script's folder)
from workloads.facts.missing import NA  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402

COMPILES = ("off", "model", "block")


def _cpu_s() -> float:
    """CPU seconds of this process's waited-for descendants: the run's, its workload child's and their compile
    workers' (what a compile costs in work, less shaken by other processes than its wall time)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _cardbench_run(argv: list[str], runs_dir: Path, cache: Path, timeout_s: float) -> dict[str, Any]:
    """One run's JSON result (its ``error`` where it failed, as bench/fit_two_sided.py reads one, glibc's malloc
    left as it is), its step events' seconds and the CPU seconds it used, under its own compile caches."""
    caches = {"TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"), "TRITON_CACHE_DIR": str(cache / "triton")}
    cpu_before = _cpu_s()
    _, result = run_cardbench(argv, runs_dir, timeout_s, malloc="glibc", env_extra=caches)
    result["cpu_s"] = _cpu_s() - cpu_before
    events = Path(result["run"]) / "events.jsonl" if result.get("run") else None
    result["step_s"] = ([e["step_s"] for e in map(json.loads, events.read_text().splitlines())
                         if e.get("event") == "step"] if events and events.exists() else [])
    return result


def deeper_checkpoint(layers: int, directory: Path) -> Path:
    """tiny's shape with ``layers`` decoder blocks as a Hugging Face checkpoint (config.json, model.safetensors;
    random weights of std 0.02, norms 1): what ``--weights`` reads."""
    import torch
    from safetensors.torch import save_file

    from workloads.models.llama.checkpoint import expected_shapes
    from workloads.models.llama.hf_config import read_config

    tiny = PRESETS["tiny"]
    (directory / "config.json").write_text(json.dumps({
        "model_type": "llama", "vocab_size": tiny.vocab_size, "hidden_size": tiny.hidden_size,
        "intermediate_size": tiny.intermediate_size, "num_hidden_layers": layers,
        "num_attention_heads": tiny.num_attention_heads, "num_key_value_heads": tiny.num_key_value_heads,
        "max_position_embeddings": tiny.max_position_embeddings, "rope_theta": tiny.rope_theta,
        "rms_norm_eps": tiny.rms_norm_eps, "tie_word_embeddings": tiny.tie_word_embeddings}))
    gen = torch.Generator().manual_seed(0)
    save_file({name: torch.ones(shape) if "norm" in name else torch.randn(shape, generator=gen) * 0.02
               for name, shape in expected_shapes(read_config(directory)).items()}, directory / "model.safetensors")
    return directory


def run_one(opts: argparse.Namespace, mode: str, compile_: str) -> dict[str, Any]:
    model = ["--weights", str(opts.weights)] if opts.weights else ["--model", opts.model]
    argv = ["finetune", *model, "--mode", mode, "--device", opts.device, "--steps", str(opts.steps),
            "--batch-size", str(opts.batch_size), "--seq-len", str(opts.seq_len), "--amp", opts.amp,
            "--warmup", str(opts.warmup)]
    if opts.threads:
        argv += ["--threads", str(opts.threads)]
    if compile_ != "off":
        argv += ["--compile", compile_]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="compile-cache-") as cache:
        t0 = time.perf_counter()
        r = _cardbench_run(argv, opts.runs_dir, Path(cache), opts.timeout_s)
        wall = time.perf_counter() - t0
    steps = r["step_s"]
    return {"mode": mode, "compile": compile_, "said": r.get("compiled"), "error": r.get("error"),
            "cpu_s": r.get("cpu_s"), "first_step_s": steps[0] if steps else None, "second_step_s": steps[1] if len(steps) > 1 else None,
            "tokens_per_s": r.get("tokens_per_s"), "losses": r.get("losses"),
            "fallbacks": [f.get("action") for f in r.get("fallbacks") or []], "wall_s": wall,
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def _s(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else NA


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else NA


def _extra_cpu(run: dict[str, Any], eager: dict[str, Any] | None) -> float | None:
    """The CPU seconds a compiled run used beyond the eager run of the same mode: its compiles' work."""
    if eager is None or run["cpu_s"] is None or eager["cpu_s"] is None:
        return None
    return run["cpu_s"] - eager["cpu_s"]


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'mode':5} {'compile':7} {'said':5} {'step 1 s':>9} {'step 2 s':>9} {'CPU s':>7} {'tokens/s':>9} "
             f"{'x eager':>8} {'load':>10}  fallback"]
    eager = {r["mode"]: r for r in rows if r["compile"] == "off"}
    for r in rows:
        lines.append(f"{r['mode']:5} {r['compile']:7} {str(r['said']):5} {_s(r['first_step_s']):>9} "
                     f"{_s(r['second_step_s']):>9} {_s(r['cpu_s']):>7} {_s(r['tokens_per_s']):>9} "
                     f"{_ratio(r['tokens_per_s'], (eager.get(r['mode']) or {}).get('tokens_per_s')):>8} "
                     f"{r['load_before']:4.1f}-{r['load_after']:<5.1f}  {'; '.join(r['fallbacks']) or r['error'] or ''}")
    for mode in dict.fromkeys(r["mode"] for r in rows):
        by = {r["compile"]: r for r in rows if r["mode"] == mode}
        if "model" in by and "block" in by:
            m, b = by["model"], by["block"]
            two = [None if x["first_step_s"] is None or x["second_step_s"] is None
                   else x["first_step_s"] + x["second_step_s"] for x in (b, m)]
            lines.append(f"{mode}: block's compile / model's: {_ratio(b['first_step_s'], m['first_step_s'])} over step 1, "
                         f"{_ratio(*two)} over steps 1-2, {_ratio(_extra_cpu(b, by.get('off')), _extra_cpu(m, by.get('off')))}"
                         f" in CPU seconds beyond eager's; steady tokens/s block / model "
                         f"{_ratio(b['tokens_per_s'], m['tokens_per_s'])}")
    return lines


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="finetune_compile_regional", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny", help="preset (default tiny)")
    p.add_argument("--layers", type=int, default=None,
                   help="tiny's shape with this many decoder blocks instead (random weights in a temporary "
                        "checkpoint, run with --weights): the whole model's compile grows with the blocks")
    p.add_argument("--device", default="cpu", help="default cpu")
    p.add_argument("--modes", default="lora,full", help="comma-separated (default lora,full)")
    p.add_argument("--compiles", default=",".join(COMPILES), help=f"comma-separated (default {','.join(COMPILES)})")
    p.add_argument("--steps", type=int, default=8, help="steps a run (default 8)")
    p.add_argument("--warmup", type=int, default=2, help="steps left out of tokens/s (default 2: the compile and "
                                                          "the whole model's recompile)")
    p.add_argument("--batch-size", type=int, default=2, help="default 2")
    p.add_argument("--seq-len", type=int, default=32, help="default 32")
    p.add_argument("--amp", default=None, choices=("off", "fp16", "bf16"), help="default off on the CPU, else bf16")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    p.add_argument("--timeout-s", type=float, default=900.0, help="each run's limit (default 900)")
    p.add_argument("--runs-dir", type=Path, default=None, help="where the runs go (default: a temporary folder)")
    p.add_argument("--json", action="store_true", help="also print the rows as JSON")
    opts = p.parse_args(argv)
    opts.amp = opts.amp or ("off" if opts.device == "cpu" else "bf16")
    opts.runs_dir = opts.runs_dir or Path(tempfile.mkdtemp(prefix="finetune-compile-"))
    opts.weights = None
    if opts.layers:
        opts.model = f"tiny x {opts.layers} blocks"
        opts.weights = deeper_checkpoint(opts.layers, Path(tempfile.mkdtemp(prefix="finetune-compile-weights-")))
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse(argv)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{opts.model} on {opts.device}, {opts.steps} steps of {opts.batch_size} x {opts.seq_len} tokens, "
          f"amp {opts.amp}", flush=True)
    try:
        rows = [run_one(opts, mode, c) for mode in opts.modes.split(",") for c in opts.compiles.split(",")]
    finally:
        if opts.weights:
            shutil.rmtree(opts.weights, ignore_errors=True)
    print("\n".join(table(rows)))
    if opts.json:
        print(json.dumps(rows, indent=1))
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
