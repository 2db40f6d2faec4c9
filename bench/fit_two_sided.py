"""Is the fit safe on both sides? (issue 40 item 5): the plan's largest batch runs, one more does not.

    .venv/bin/python bench/fit_two_sided.py                         on the CPU: tiny, against a cap on RSS growth
    .venv/bin/python bench/fit_two_sided.py --device cuda --models Llama-3.1-8B,Qwen2.5-7B

For each model and each use (inference at ``--input-len`` + ``--output-len``; a LoRA r16 fine-tune at the same
number of tokens a sequence) the plan (`workloads.models.llama.fit_plan`) names the largest batch one card holds;
the check runs ``cardbench run llm`` / ``cardbench run finetune`` at that batch and at one more, each in its own
process, and reads:

- on a GPU, against the card's whole memory (the plan's "card" reading: context and runtime lines counted): the
  largest must run (status ok), the one beyond must run out of memory or be refused by the workload's own check;
- on the CPU nothing runs out, so a cap stands in for the card (``--cap``, default 768 MiB, kept far below this
  machine's RAM: the runs are safe): the plan is read against the cap (no driver context on a CPU; a training
  step's own runtime instead) and each run's measured peak (RSS growth since before the model was built, the
  workloads' CPU memory figure) is held against it: at the largest it must be at most the cap, one beyond above it.

A side that does not hold is a wrong answer; the figure is their count (goal 0). Each run is kept in ``--runs-dir``.

What the CPU said on the 2-core VM (tiny, cap 768 MiB, 960 + 64 tokens). 2026-12-06, glibc's RSS, before the step's
transient was counted: inference at the plan's 14 grew 577 MiB (holds), at 15 584 MiB (wrong, the cautious side);
LoRA at 3 grew 1.4 GiB against an estimate of 702 MiB (wrong, the unsafe side). 2026-12-07, after the fused loss
and this script's ``--malloc live`` (the default: RSS follows the live tensors, see LIVE_MALLOC_ENV) with the
estimate's step transient and the CPU's training runtime as lines of their own: inference 14 grew 517 MiB (holds),
15 548 MiB (wrong: the estimate counts 45 MiB a sequence of 960 prompt tokens where 31 MiB were measured, and one
sequence is 4 % of the cap, so the beyond side asks for the estimate within 4 %); LoRA 2 grew 758 MiB against a
plan of 768 MiB (holds) and 3 979 MiB against 984 MiB (holds). Under glibc's default (``--malloc glibc``) RSS ran
up to 540 MiB past the live tensors at LoRA batch 3 (bench/train_step_peak.py), which no estimate of tensors counts.
Whether a card's caching allocator adds the same is what the GPU run of this script (bench/gpu_acceptance.py)
answers.
2026-12-07, after the inference estimate counts the live tensors at the MLP's peak (3 x hidden + 4 x intermediate a
prompt token, equal to torch's MemTracker within 1 %: tests/workloads/models/llama/test_llama_fit_live.py) and with
no allocator line under --malloc live (nothing is kept past the live tensors there): 0 wrong answers. Inference: plan
22, measured 759 MiB at 22 (plan 749 MiB) and 790 MiB at 23 (plan 780 MiB); LoRA: plan 2, 765 MiB at 2 (plan 742
MiB) and 987 MiB at 3 (plan 948 MiB). The estimate sits 1.3 % (inference) and 3-4 % (LoRA) under the RSS growth,
inside the cap's margin; on a card the allocator's 5 % line stands over that gap.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workloads.facts.formatting import format_bytes  # noqa: E402
from workloads.facts.memory_size import memory_size  # noqa: E402
from workloads.models.llama.fit_plan import Ask, Target, verdict  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE  # noqa: E402


def plan_batch(model: str, use: str, tokens: int, prefill: int, element_size: int, target: Target) -> int:
    """The largest batch the plan says one card holds for ``use`` ("inference" or "lora")."""
    ask = Ask(PRESETS[model], model, "bf16" if element_size == 2 else "fp32", element_size, 1, tokens, prefill)
    return verdict(ask, use, target)["largest_batch"]


# glibc keeps freed memory in the process and hands it out again as it sees fit, so RSS runs ahead of the live
# tensors by what the run's history left (up to 540 MiB at LoRA batch 3 on tiny: bench/train_step_peak.py); with
# every allocation of 64 KiB or more its own mapping, returned on free, RSS follows the live tensors as a card's
# allocated memory does, which is what the estimate counts
LIVE_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536"}


def run_cardbench(argv: list[str], runs_dir: Path, timeout_s: float, malloc: str = "live",
                  env_extra: dict[str, str] | None = None) -> tuple[int | None, dict[str, Any]]:
    """``cardbench run --json ARGV`` in its own process (``env_extra`` on top of this one's environment): its exit
    code and result (``error`` where it failed); bench/finetune_compile_regional.py runs its runs through it too."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               **(env_extra or {}))
    if malloc == "live":
        env.update(LIVE_MALLOC_ENV)
    command = [sys.executable, "-m", "tui.cli", "run", "--runs-dir", str(runs_dir), "--json", *argv]
    print("  $ cardbench run " + " ".join(argv), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None, {"error": f"stopped after {timeout_s:.0f} s"}
    try:
        result = json.loads(done.stdout) if done.stdout.strip() else {}
    except ValueError:
        result = {}
    if done.returncode != 0:
        result.setdefault("error", (done.stderr.strip().splitlines() or ["(nothing said)"])[-1][:300])
    return done.returncode, result


def run_side(args: argparse.Namespace, model: str, use: str, batch: int) -> dict[str, Any]:
    """One run at ``batch``: its exit, status and measured peak."""
    common = ["--model", model, "--device", args.device]
    if use == "inference":
        code, m = run_cardbench(["llm", *common, "--input-len", str(args.input_len), "--output-len",
                              str(args.output_len), "--batch-size", str(batch), "--repeat", "1"],
                             args.runs_dir, args.timeout_s, args.malloc)
        status = m.get("status") or ("error" if code else None)
        peak = m.get("peak_memory_bytes")
    else:
        code, m = run_cardbench(["finetune", *common, "--mode", "lora", "--seq-len",
                              str(args.input_len + args.output_len), "--batch-size", str(batch), "--steps", "2",
                              "--warmup", "0", "--amp", "off" if args.device == "cpu" else "bf16"],
                             args.runs_dir, args.timeout_s, args.malloc)
        status = "ok" if code == 0 else ("refused" if code == 2 else "error")
        peak = m.get("peak_memory_growth_bytes" if args.device == "cpu" else "peak_memory_reserved_bytes")
    return {"exit_code": code, "status": status, "peak_bytes": peak, "error": m.get("error")}


def holds(side: str, run: dict[str, Any], room: int, cpu: bool) -> bool:
    """Whether the plan was right on this side."""
    peak = run["peak_bytes"]
    if cpu:   # nothing runs out on the CPU: the cap stands in for the card
        return peak is not None and (peak <= room if side == "largest" else peak > room)
    ran = run["status"] == "ok"
    return ran if side == "largest" else not ran   # beyond: out of memory, or refused by the workload's check


def check(args: argparse.Namespace) -> list[dict[str, Any]]:
    cpu = args.device == "cpu"
    room, target = _room(args)
    rows = []
    for model in args.model_list:
        for use in ("inference", "lora"):
            tokens = args.input_len + args.output_len
            largest = plan_batch(model, use, tokens, args.input_len if use == "inference" else tokens,
                                 4 if cpu else 2, target)
            if largest == 0:
                rows.append({"model": model, "use": use, "side": "largest", "batch": 0, "holds": None,
                             "note": "the plan says not even one sequence fits: nothing to run"})
                continue
            for side, batch in (("largest", largest), ("beyond", largest + 1)):
                run = run_side(args, model, use, batch)
                rows.append({"model": model, "use": use, "side": side, "batch": batch, **run,
                             "room_bytes": room, "holds": holds(side, run, room, cpu)})
                _say_row(rows[-1])
    return rows


def _room(args: argparse.Namespace) -> tuple[int, Target]:
    if args.device == "cpu":
        # no driver context (a training step's own instead); under --malloc live nothing is kept past the live tensors,
        # so the allocator's line (a card's caching allocator's reserve) is none; glibc's retention is not modelled
        share = 0.0 if args.malloc == "live" else ALLOCATOR_SHARE
        return args.cap, Target("cap", "free", args.cap, cpu=True, allocator_share=share)
    import torch   # the card's whole memory, without a context in this process (get_device_properties makes none)

    total = torch.cuda.get_device_properties(torch.device(args.device)).total_memory
    return total, Target(torch.cuda.get_device_name(torch.device(args.device)), "card", total)


def _say_row(row: dict[str, Any]) -> None:
    said = "holds" if row["holds"] else "WRONG"
    print(f"  {row['model']} {row['use']} {row['side']} batch {row['batch']}: {row['status']}, peak "
          f"{format_bytes(row['peak_bytes'])} of {format_bytes(row['room_bytes'])}: {said}"
          + (f" ({row['error']})" if row.get("error") and row["status"] != "ok" else ""), file=sys.stderr, flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="fit_two_sided", description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu", help="cpu (a cap stands in for the card) or cuda (default cpu)")
    p.add_argument("--models", default=None, help="presets, comma-separated (default: tiny on the CPU, "
                                                  "Llama-3.1-8B on a GPU)")
    p.add_argument("--cap", type=memory_size, default=768 * 2**20, help="on the CPU: the memory the plan is read "
                                                                         "against (default 768MiB)")
    p.add_argument("--input-len", type=int, default=None, help="prompt tokens (default 960 on the CPU, 4000)")
    p.add_argument("--output-len", type=int, default=None, help="output tokens (default 64 on the CPU, 96)")
    p.add_argument("--malloc", choices=("live", "glibc"), default="live",
                   help="on the CPU: live (every allocation of 64 KiB or more its own mapping, so RSS follows the "
                        "live tensors) or glibc's default, which keeps freed memory (default live)")
    p.add_argument("--timeout-s", type=float, default=600.0, help="each run's limit (default 600)")
    p.add_argument("--runs-dir", type=Path, default=None, help="where the runs go (default: a temporary folder)")
    args = p.parse_args(argv)
    cpu = args.device == "cpu"
    args.model_list = [m.strip() for m in (args.models or ("tiny" if cpu else "Llama-3.1-8B")).split(",")]
    unknown = [m for m in args.model_list if m not in PRESETS]
    if unknown:
        p.error(f"--models: unknown preset {', '.join(unknown)}; known: {', '.join(PRESETS)}")
    args.input_len = args.input_len or (960 if cpu else 4000)
    args.output_len = args.output_len or (64 if cpu else 96)
    args.runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="fit-two-sided-"))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    rows = check(args)
    wrong = [r for r in rows if r["holds"] is False]
    print(json.dumps({"check": "fit two-sided", "device": args.device, "malloc": args.malloc,
                      "runs_dir": str(args.runs_dir),
                      "cap_bytes": args.cap if args.device == "cpu" else None, "rows": rows,
                      "wrong_answers": len(wrong)}, indent=1))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
