"""What a run will hold, by estimate, refused before anything is built when no machine could hold it (torch-free).

Two places hold memory. The host holds the data (the synthetic pool, or the tokens a file gives up to what the
steps take) and the model's modules: every layer is a dozen Python objects, its parameters' tensor headers and, in
a step, autograd's nodes and AdamW's state objects, whatever the layer's width; measured on the CPU at width 2,
25 KB a layer to build and 80 KB more once a step and AdamW have run, so 10^6 layers of width 2 need 100 GB
however few their bytes of weights. The device (the host itself on the CPU) holds a step's estimate
(:func:`workloads.finetune.flops.step_memory`), its weights, gradients and moments split over FSDP's ranks.

:func:`check_host` runs with the options (no torch, before a run directory exists): the host's share against its
RAM, and the step against the RAM on the CPU or, on an accelerator whose memory only torch can read, against the
most any accelerator has. :func:`check_device` runs once the device is known, before the model is built.
A refusal is one line and exit 2; a run the estimate lets through may still run out of memory, which is said
with the batch that would fit (workloads/finetune/train.py).
"""

from __future__ import annotations

from typing import Any

from workloads.child.harness import WorkloadError
from workloads.facts.formatting import format_bytes
from workloads.finetune import flops
from workloads.models.llama.fit import Estimate, split_over
from workloads.models.llama.presets import LlamaConfig

MODULE_BYTES_PER_LAYER = 96 << 10      # measured: 25 KB built + 80 KB after a step (see above), rounded down
SYNTHETIC_TOKEN_BYTES = 8              # the synthetic pool is int64, as torch.randint draws it
POOL_BATCHES = 4                       # workloads.finetune.data's pool: four global batches, cycled
LARGEST_DEVICE_BYTES = 1 << 40         # above any accelerator's memory (the largest hold 288 GB in 2025)
HINT = "a smaller model or --batch-size, a lower --seq-len, --mode lora, --activation-checkpointing or more --gpus"


def tokens_needed(args: Any) -> int:
    """Tokens of --data the run's steps take: each step a global batch of seq_len + 1, none seen twice."""
    return args.steps * args.batch_size * (args.seq_len + 1)


def data_bytes(args: Any, file_bytes: int | None) -> int:
    """Host bytes of the data: the synthetic pool, or a file's tokens (one byte a byte, the most a file of
    ``file_bytes`` gives; a tokenizer's ids are four bytes but fewer than the bytes they encode), up to what the
    steps take."""
    if args.data is None:
        return POOL_BATCHES * args.batch_size * (args.seq_len + 1) * SYNTHETIC_TOKEN_BYTES
    tokens = min(tokens_needed(args), file_bytes if file_bytes is not None else tokens_needed(args))
    return tokens * (4 if args.weights is not None else 1)


def step_estimate(args: Any, config: LlamaConfig, micro: int, world: int) -> Estimate:
    """Bytes one device holds for a step of ``micro`` sequences; FSDP keeps 1/N of the weights, gradients and
    moments on each of its N devices."""
    e = flops.step_memory(config, micro, args.seq_len, args.amp, args.mode, args.activation_checkpointing,
                          args.lora_rank, args.lora_target_names)
    return split_over(e, world, config, micro, args.seq_len, 4 if args.amp == "off" else 2)


def check_host(args: Any, config: LlamaConfig, name: str, world: int | None, file_bytes: int | None) -> None:
    """Refuse what this host or any device could not hold, by estimate, from the options alone."""
    data = data_bytes(args, file_bytes)
    modules = config.num_hidden_layers * MODULE_BYTES_PER_LAYER
    on_cpu = str(args.device).startswith("cpu")
    step = step_estimate(args, config, args.batch_size // (world * args.grad_accum), world) if world else None
    host = data + modules + (step.total if on_cpu and step else 0)
    ram = host_memory()
    if ram is not None and host > ram:
        parts = (f"data {format_bytes(data)}, modules of {config.num_hidden_layers:,} layers {format_bytes(modules)}"
                 + (f", a step {format_bytes(step.total)}" if on_cpu and step else ""))
        raise WorkloadError(f"finetune of {name} needs about {format_bytes(host)} of host memory by the estimate "
                            f"({parts}); this machine has {format_bytes(ram)}", hint=HINT)
    if step is not None and not on_cpu and step.total > LARGEST_DEVICE_BYTES:
        raise WorkloadError(f"finetune of {name} needs about {format_bytes(step.total)} a device by the estimate "
                            f"({_parts(step)}), more than any accelerator holds", hint=HINT)


def check_device(args: Any, config: LlamaConfig, micro: int, world: int, device: Any, total: int | None) -> None:
    """Refuse a step the device's ``total`` bytes cannot hold, by estimate, before the model is built."""
    step = step_estimate(args, config, micro, world)
    if total is None or step.total <= total:
        return
    fits = flops.largest_batch(total, lambda m: step_estimate(args, config, m, world).total)
    largest = (f"the largest micro-batch that would fit is about {fits} (--batch-size {fits * world * args.grad_accum})"
               if fits else "not even one sequence fits")
    raise WorkloadError(f"a step of {micro} x {args.seq_len} tokens needs about {format_bytes(step.total)} a device "
                        f"by the estimate ({_parts(step)}); {device} has {format_bytes(total)}: {largest}", hint=HINT)


def _parts(e: Estimate) -> str:
    return (f"weights {format_bytes(e.weights)}, activations {format_bytes(e.activations)}, the step's transient peak "
            f"{format_bytes(e.transient)}, gradients and AdamW {format_bytes(e.gradients + e.optimizer)}")


def host_memory() -> int | None:
    """The host's RAM, or None where psutil cannot say (no check then)."""
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # noqa: BLE001 - no figure: no check, the allocator still has its say
        return None
