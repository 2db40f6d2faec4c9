"""Where a fine-tuning step's memory peak comes from, phase by phase, beside the fit estimate's terms (issue 40 item 5).

    .venv/bin/python bench/train_step_peak.py                          tiny, LoRA r16 and full, fp32, 1024 tokens
    .venv/bin/python bench/train_step_peak.py --modes lora --batches 1,2,4 --checkpointing

Each batch runs in a fresh process, as `cardbench finetune` builds it (:func:`workloads.finetune.step.built_whole`,
AdamW over what trains, the LM loss fused over chunks). One step runs unmeasured (AdamW's moments and the gradients
exist after it, as in every later step), then the second step's phases are read on the process's RSS: before the
forward (``held``: weights, moments, modules), the forward's peak and what stays after it (what autograd saved, and
the fused loss's gradient of the hidden states), the backward's peak over what the forward left (its transient: the
gradients of the layer it is in, besides everything still saved), and AdamW's step over what the backward left.

Each is read twice: with glibc's malloc as it is, and with ``MALLOC_MMAP_THRESHOLD_=65536`` (every tensor of 64 KiB or
more its own mapping, returned on free), under which RSS follows the live tensors: the gap between the two is what
glibc keeps of freed memory, which a card's caching allocator does not show the same way. The estimate's terms
(:func:`workloads.models.llama.fit.step_memory`) are printed beside.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workloads.facts.formatting import format_bytes  # noqa: E402
from workloads.models.llama import fit  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402
from workloads.models.llama.runtime_cost import CPU_TRAINING_BYTES  # noqa: E402

MMAP_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536"}


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _hwm() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))


def _reset() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")   # VmHWM back to the RSS now


def measure(model_name: str, mode: str, batch: int, seq_len: int, checkpointing: bool) -> dict[str, int]:
    """In this process: one step unmeasured, then the second step's phases (bytes over the RSS before the model)."""
    import torch

    from workloads.finetune.step import built_whole
    from workloads.models.loss import lm_loss

    torch.manual_seed(0)
    base = _rss()
    args = SimpleNamespace(weights=None, seed=0, mode=mode, lora_target_names=fit.TARGETS, lora_rank=fit.LORA_RANK,
                           lora_alpha=32.0, lora_dropout=0.0, amp="off", check_against_cpu=0)
    model, _ = built_whole(PRESETS[model_name], args, torch.device("cpu"))
    model.checkpointing = checkpointing
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    tokens = torch.randint(0, PRESETS[model_name].vocab_size, (batch, seq_len + 1))
    for _ in range(2):
        optimizer.zero_grad(set_to_none=True)
        held = _rss()
        _reset()
        loss = lm_loss(model, tokens)
        forward_peak, after_forward = _hwm(), _rss()
        _reset()
        loss.backward()
        backward_peak, after_backward = _hwm(), _rss()
        _reset()
        optimizer.step()
        step_peak = _hwm()
    return {"held": held - base, "forward_transient": forward_peak - after_forward, "saved": after_forward - held,
            "backward_transient": backward_peak - after_forward, "grads": after_backward - held,
            "step_transient": step_peak - after_backward,
            "peak": max(forward_peak, backward_peak, step_peak) - base}


def run_child(args: argparse.Namespace, mode: str, batch: int, mmap: bool) -> dict[str, int]:
    env = dict(os.environ, **(MMAP_ENV if mmap else {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, __file__, "--child", mode, str(batch), "--model", args.model,
               "--seq-len", str(args.seq_len)] + (["--checkpointing"] if args.checkpointing else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def estimate(args: argparse.Namespace, mode: str, batch: int) -> fit.Estimate:
    return fit.step_memory(PRESETS[args.model], batch, args.seq_len, "off", mode, args.checkpointing)


def say(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    mib = 2**20
    print(f"{args.model}, fp32, {args.seq_len} tokens a sequence, checkpointing {args.checkpointing}; MiB over the "
          f"RSS before the model (malloc as it is / every tensor its own mapping); estimate's terms beside")
    print("| mode | batch | held | saved | forward transient | backward transient | step transient "
          "| peak (glibc / mmap) | est. activations | est. transient | est. total + CPU runtime |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        g, m, e = r["glibc"], r["mmap"], r["estimate"]
        cells = [f"{g[k] / mib:.0f} / {m[k] / mib:.0f}" for k in ("held", "saved", "forward_transient",
                                                                  "backward_transient", "step_transient", "peak")]
        print(f"| {r['mode']} | {r['batch']} | " + " | ".join(cells) + f" | {e.activations / mib:.0f} | "
              f"{e.transient / mib:.0f} | {(e.total + CPU_TRAINING_BYTES) / mib:.0f} |")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="train_step_peak", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny", choices=sorted(PRESETS))
    p.add_argument("--modes", default="lora,full", help="lora, full or both (default lora,full)")
    p.add_argument("--batches", default="1,2,3", help="sequences a step, comma-separated (default 1,2,3)")
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--checkpointing", action="store_true", help="activation checkpointing on")
    p.add_argument("--child", nargs=2, metavar=("MODE", "BATCH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        args.batch_list = [int(b) for b in args.batches.split(",")]
    except ValueError:
        p.error(f"--batches: {args.batches!r} is not a list of whole numbers")
    if any(b < 1 for b in args.batch_list) or args.seq_len < 2:
        p.error("--batches and --seq-len must be positive (--seq-len at least 2)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.child:
        print(json.dumps(measure(args.model, args.child[0], int(args.child[1]), args.seq_len, args.checkpointing)))
        return 0
    rows = []
    for mode in args.modes.split(","):
        for batch in args.batch_list:
            rows.append({"mode": mode, "batch": batch, "glibc": run_child(args, mode, batch, False),
                         "mmap": run_child(args, mode, batch, True), "estimate": estimate(args, mode, batch)})
            row = rows[-1]
            print(f"  {mode} batch {batch}: peak {format_bytes(row['glibc']['peak'])} (mmap "
                  f"{format_bytes(row['mmap']['peak'])}), estimate {format_bytes(row['estimate'].total)}",
                  file=sys.stderr, flush=True)
    say(args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
