"""Where a decode step's time goes: torch.profiler over cardbench's Llama step and transformers' (issue 24).

    .venv/bin/python bench/llama_decode_profile.py [--model qwen2.5-0.5b] [--split 1] [--steps 3] [--rows 12]

Both models hold the same weights (as bench/llama_decode_vs_transformers.py builds them), are prefilled with
the same 32-token prompt, then each decodes ``--steps`` positions under the profiler; the table of each is
sorted by the time spent in the op itself. Before the tables: each step's wall time (5 steps).

``--attention N`` instead times the decode step's attention alone (q @ k^T, softmax, @ v for Qwen2.5-0.5B's
7 query heads per key head over N cached positions) on torch's threads and on one thread: what
workloads/models/one_query.py's rule rests on. Median and mean of 300 calls; on a loaded machine the mean
holds the waits for the scheduler that a parallel region pays.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "bench"))


def timed(fn, n: int) -> tuple[float, float]:
    """(median, mean) seconds of ``n`` calls after 5 unmeasured ones."""
    for _ in range(5):
        fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), statistics.fmean(times)


def attention(positions: int) -> None:
    import torch

    from workloads.models import one_query

    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, rows, 64, generator=gen) for rows in (7, positions, positions))
    with torch.inference_mode():
        for label, fn in (("torch's threads", lambda: one_query._plain(q, k, v)),
                          ("one thread", lambda: one_query.attend(q, k, v))):
            if label == "one thread" and k.numel() > one_query.SERIAL_MAX_KEYS:
                label += " (not: past SERIAL_MAX_KEYS, same as above)"
            median, mean = timed(fn, 300)
            print(f"attention over {positions} positions, {label} ({torch.get_num_threads()} threads): "
                  f"median {median * 1e6:.1f} us, mean {mean * 1e6:.1f} us")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-0.5b")
    parser.add_argument("--split", type=int, default=1, help="cardbench's product split (1: none)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rows", type=int, default=12, help="ops listed per table")
    parser.add_argument("--attention", type=int, metavar="N", help="time the attention alone over N positions")
    args = parser.parse_args()
    if args.attention:
        attention(args.attention)
        return 0
    import torch
    from torch.profiler import ProfilerActivity, profile

    from llama_decode_vs_transformers import hf_model
    from workloads.models.decoding import EagerDecoder
    from workloads.models.llama.checkpoint import load_state_dict
    from workloads.models.llama.model import Llama
    from workloads.models.llama.presets import preset

    config = preset(args.model)
    if config is None:
        print(f"unknown model {args.model!r}", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    hf = hf_model(config, torch.float32, torch.device("cpu"))
    ours = Llama(config)
    load_state_dict(ours, hf.state_dict(), "transformers' model")
    ours.eval().requires_grad_(False)
    ours.split_products(args.split)
    prompt = torch.randint(0, config.vocab_size, (1, 32), generator=torch.Generator().manual_seed(0))
    cache = ours.new_cache(1, 32 + 16 + args.steps)
    decoder = EagerDecoder(ours, cache)
    token = torch.tensor([[5]])
    with torch.inference_mode():
        ours(prompt, cache, 0, last_only=True)
        state = {"cache": hf(prompt, use_cache=True, logits_to_keep=1).past_key_values, "pos": 32}

        def theirs() -> None:
            state["cache"] = hf(token, past_key_values=state["cache"], use_cache=True, logits_to_keep=1).past_key_values

        def mine() -> None:
            decoder(token, state["pos"])
            state["pos"] += 1

        for label, step in (("cardbench", mine), ("transformers", theirs)):
            state["pos"] = 32
            walls = []
            for _ in range(5):
                t0 = time.perf_counter()
                step()
                walls.append(time.perf_counter() - t0)
            print(f"{label}: step wall ms {[round(w * 1e3, 1) for w in walls]} ({torch.get_num_threads()} threads)")
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                for _ in range(args.steps):
                    step()
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
