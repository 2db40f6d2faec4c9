"""cardbench's decode tokens/s against Hugging Face transformers' ``generate()`` on the same GPT-2.

    .venv/bin/python bench/generate_vs_transformers.py [--rounds 3] [--tokens 256] [--prompt-len 32]
        [--device cpu] [--dtype fp32] [-- extra workload flags, e.g. --compile or --cuda-graphs]

Both run GPT-2 124M with random weights, greedy, batch 1, the same prompt
length and new-token count, interleaved round by round (cardbench, then
transformers) so a busy neighbour slows both alike. cardbench runs as the
workbench runs it (``python -m workloads.generate``, one timed run after its
warm-up) and reports its own decode tokens/s and achieved bandwidth fraction;
transformers runs in this process after one warm-up ``generate()``, timed per
token with a streamer: decode tokens/s = (new tokens - 1) / (last token - first
token), the same definition cardbench uses (the first token is the prefill's).

Both stream their weights over transparent huge pages (PyTorch's
THP_MEM_ALLOC_ENABLE=1, which the workload sets for itself), so the ratio
compares the loops, not the allocator.

Goals: on the CPU, ratio >= 1.0 and cardbench's bandwidth fraction >= 0.4
(both loops are bound by memory bandwidth there); on a GPU in bf16 with CUDA
graphs or --compile, ratio >= 3.

transformers is a benchmark-only dependency: `pip install transformers`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class TokenClock:
    """A transformers streamer that only notes when each new token arrives (the first put is the prompt)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.prompt_seen = False

    def put(self, value) -> None:
        if not self.prompt_seen:
            self.prompt_seen = True
            return
        self.times.append(time.perf_counter())

    def end(self) -> None:
        pass


def cardbench_round(args: argparse.Namespace, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "workloads.generate", "--model-size", "124M", "--device", args.device,
           "--dtype", args.dtype, "--tokens", str(args.tokens), "--prompt-len", str(args.prompt_len),
           "--batch-size", "1", "--repeat", "1", "--warmup", "16", *extra]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    result = next((e["metrics"] for e in events if e.get("event") == "result"), None)
    if proc.returncode != 0 or result is None:
        error = next((e.get("message") for e in events if e.get("event") == "error"), proc.stderr[-2000:])
        raise SystemExit(f"cardbench run failed (exit {proc.returncode}): {error}")
    for event in events:
        if event.get("event") in ("fallback", "warning"):
            print(f"  cardbench {event['event']}: {event.get('error') or event.get('message')}")
    return result


def transformers_model(args: argparse.Namespace):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config())  # the 124M shape, random weights
    return model.to(device=args.device, dtype=getattr(torch, DTYPES[args.dtype])).eval()


def transformers_round(model, args: argparse.Namespace, new_tokens: int) -> dict:
    import torch

    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (1, args.prompt_len), generator=gen).to(args.device)
    clock = TokenClock()
    start = time.perf_counter()
    with torch.inference_mode():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                             min_new_tokens=new_tokens, do_sample=False, streamer=clock,
                             pad_token_id=model.config.eos_token_id)
    assert out.shape[1] == args.prompt_len + new_tokens, out.shape
    times = clock.times
    return {"tokens_per_s": (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else None,
            "ttft_s": times[0] - start}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--prompt-len", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=list(DTYPES), default="fp32")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    # the workload streams its weights over transparent huge pages; give transformers the same pages,
    # so the ratio compares the two loops and not the allocator
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        import torch
        import transformers
    except ImportError as exc:
        print(f"this benchmark needs transformers (a benchmark-only dependency): {exc}\n"
              "install it with: pip install transformers", file=sys.stderr)
        return 2
    print(f"GPT-2 124M, random weights, {args.dtype}, greedy, batch 1, prompt {args.prompt_len}, "
          f"{args.tokens} new tokens, on {args.device} ({torch.get_num_threads()} threads); "
          f"torch {torch.__version__}, transformers {transformers.__version__}; cardbench flags: {extra or 'none'}; "
          f"THP_MEM_ALLOC_ENABLE={os.environ['THP_MEM_ALLOC_ENABLE']} for both")
    model = transformers_model(args)
    transformers_round(model, args, 16)  # warm-up
    rows = []
    for r in range(1, args.rounds + 1):
        ours = cardbench_round(args, extra)
        theirs = transformers_round(model, args, args.tokens)
        ratio = ours["tokens_per_s"] / theirs["tokens_per_s"]
        rows.append((ours, theirs, ratio))
        print(f"round {r}: cardbench {ours['tokens_per_s']:.1f} tokens/s "
              f"({ours['bandwidth_fraction']:.2f} of {ours['device_read_gbps']:.1f} GB/s read bandwidth, "
              f"bound {ours['bound_tokens_per_s']:.1f} tokens/s, {ours['decode']} decode) | "
              f"transformers {theirs['tokens_per_s']:.1f} tokens/s | ratio {ratio:.2f}", flush=True)
    ours_rate = statistics.median(o["tokens_per_s"] for o, _, _ in rows)
    theirs_rate = statistics.median(t["tokens_per_s"] for _, t, _ in rows)
    fraction = statistics.median(o["bandwidth_fraction"] for o, _, _ in rows)
    read = statistics.median(o["device_read_gbps"] for o, _, _ in rows)
    ratio = statistics.median(r for _, _, r in rows)
    goal_ratio = 1.0 if args.device == "cpu" else 3.0
    ttft_ours = statistics.median(o["ttft_s"] for o, _, _ in rows) * 1000
    ttft_theirs = statistics.median(t["ttft_s"] for _, t, _ in rows) * 1000
    print(f"median of {len(rows)} rounds: cardbench {ours_rate:.1f} tokens/s, transformers {theirs_rate:.1f} tokens/s, "
          f"ratio {ratio:.2f} (goal >= {goal_ratio:.1f}); cardbench bandwidth {fraction:.2f} of the measured "
          f"{read:.1f} GB/s (goal >= 0.4); time to first token: cardbench {ttft_ours:.0f} ms, "
          f"transformers {ttft_theirs:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
