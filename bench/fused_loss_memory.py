"""The LM head and its loss, fused over chunks of tokens (workloads/models/chunked_loss.py) against the unfused way
(``logits = hidden @ head``, then cross-entropy over fp32 logits): peak memory and time of one forward + backward.

The shape is a preset's head (default Qwen2.5-0.5B's: width 896, vocabulary 151,936) over one sequence of 2,048
tokens, the head frozen as LoRA leaves it (``--full``: trained), in the preset's training dtype on this device.
Peak memory on the CPU is the process's RSS high-water mark, reset before each side (VmHWM, /proc/self/clear_refs);
on a card the allocator's peak. Each side runs ``--repeats`` times, interleaved, and the median time is printed.

    python bench/fused_loss_memory.py
    python bench/fused_loss_memory.py --device cuda --model Qwen2.5-7B --dtype bf16 --full
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from workloads.child import device as devices  # noqa: E402
from workloads.facts.formatting import format_bytes  # noqa: E402
from workloads.models.chunked_loss import linear_cross_entropy
from workloads.models.loss_chunk import chunk_rows  # noqa: E402
from workloads.models.llama.presets import preset  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def unfused(hidden: torch.Tensor, head: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy((hidden @ head).float(), targets)


def one_side(loss_of, hidden, head, targets, device) -> tuple[float, int | None]:
    """Seconds of one forward + backward, and the peak memory it grew over what was held before it."""
    hidden.grad = head.grad = None
    devices.synchronize(device)
    base = devices.memory_in_use(device)
    devices.reset_peak_memory(device)
    start = time.perf_counter()
    loss_of(hidden, head, targets).backward()
    devices.synchronize(device)
    seconds = time.perf_counter() - start
    peak = devices.peak_memory(device)[0]
    return seconds, (peak - base if peak is not None and base is not None else None)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="Qwen2.5-0.5B")
    p.add_argument("--tokens", type=int, default=2048)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="fp32")
    p.add_argument("--device", default="cpu")
    p.add_argument("--full", action="store_true", help="the head trains (a full fine-tune), not frozen (LoRA)")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    config, device, dtype = preset(args.model), torch.device(args.device), DTYPES[args.dtype]
    gen = torch.Generator().manual_seed(0)
    hidden = torch.randn(args.tokens, config.hidden_size, generator=gen).to(device, dtype).requires_grad_()
    head = (torch.randn(config.hidden_size, config.vocab_size, generator=gen) * 0.02).to(device, dtype)
    head.requires_grad_(args.full)
    targets = torch.randint(0, config.vocab_size, (args.tokens,), generator=gen).to(device)
    sides = {"unfused": unfused, "fused": linear_cross_entropy}
    seen: dict[str, list[tuple[float, int | None]]] = {name: [] for name in sides}
    for _ in range(args.repeats):
        for name, loss_of in sides.items():
            seen[name].append(one_side(loss_of, hidden, head, targets, device))
    logits = args.tokens * config.vocab_size * 4
    print(f"{args.model} head ({config.hidden_size} x {config.vocab_size}), {args.tokens} tokens, {args.dtype} on "
          f"{device}, head {'trained' if args.full else 'frozen'}; fp32 logits of all tokens {format_bytes(logits)}, "
          f"of one chunk ({chunk_rows(config.vocab_size)} tokens) "
          f"{format_bytes(chunk_rows(config.vocab_size) * config.vocab_size * 4)}")
    for name, runs in seen.items():
        peaks = [peak for _, peak in runs if peak is not None]
        print(f"  {name:8s} median {statistics.median(s for s, _ in runs) * 1e3:8.1f} ms   "
              f"peak growth {format_bytes(max(peaks)) if peaks else 'N/A'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
