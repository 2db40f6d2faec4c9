"""The finetune workload's options and every check that needs no torch: bad input is one line and exit 2
before a run directory exists (``cardbench run`` checks first)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from workloads.child import cpu_fallback_option, data_parallel, multinode
from workloads.child.harness import ArgumentParser, WorkloadError, non_negative_int, positive_float, positive_int
from workloads.finetune import budget
from workloads.finetune.flops import TARGETS
from workloads.finetune.spec import BATCH_SIZE, SEQ_LEN, SPEC, STEPS
from workloads.cold_start import option as cold_start_option
from workloads.models.llama import fit_args
from workloads.models.llama.presets import LlamaConfig, known_models, preset

WORKLOAD = SPEC.name
UNIT = SPEC.unit
COMPILE_SCOPES = ("block", "model")   # --compile's values: the regional compile, or the whole model's
TEXT_SAMPLE_BYTES = 1 << 16  # what is read of --data before torch to tell text from anything else


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Fine-tune a Llama-family model (full or LoRA): tokens/s, MFU, loss.")
    p.add_argument("--model", default="tiny", metavar="PRESET", help=f"one of {known_models()} (default tiny)")
    p.add_argument("--weights", metavar="DIR", type=Path, default=None,
                   help="a local Hugging Face checkpoint directory (its config.json wins over --model)")
    p.add_argument("--mode", choices=("full", "lora"), default="lora", help="full fine-tune or LoRA (default lora)")
    p.add_argument("--lora-rank", metavar="R", type=positive_int, default=16, help="LoRA rank r (default 16)")
    p.add_argument("--lora-alpha", metavar="A", type=positive_float, default=32.0,
                   help="LoRA alpha: the update is scaled by alpha / r (default 32)")
    p.add_argument("--lora-dropout", metavar="P", type=float, default=0.0, help="dropout on the adapters' input (default 0)")
    p.add_argument("--lora-targets", metavar="NAMES", default=",".join(TARGETS),
                   help=f"products that get an adapter, by name (default {','.join(TARGETS)}; q, k, v are one "
                        "product 'qkv' here, gate and up one 'gate_up')")
    p.add_argument("--steps", metavar="N", type=positive_int, default=STEPS, help=f"optimizer steps (default {STEPS})")
    p.add_argument("--batch-size", metavar="N", type=positive_int, default=BATCH_SIZE,
                   help=f"sequences per optimizer step, all devices and accumulation together (default {BATCH_SIZE})")
    p.add_argument("--seq-len", metavar="T", type=positive_int, default=SEQ_LEN,
                   help=f"tokens per sequence (default {SEQ_LEN})")
    p.add_argument("--grad-accum", metavar="N", type=positive_int, default=1,
                   help="micro-batches whose gradients add up to one step (default 1)")
    p.add_argument("--activation-checkpointing", action="store_true",
                   help="recompute each block's activations in the backward pass (less memory, ~1/3 more compute)")
    p.add_argument("--compile", nargs="?", const="block", default=None, choices=COMPILE_SCOPES, metavar="block|model",
                   help="torch.compile: each decoder block in place (block, the bare flag's: one block's code, "
                        "compiled once and reused) or the whole model (model); falls back to eager on failure "
                        "(default off)")
    p.add_argument("--amp", choices=("off", "fp16", "bf16"), default="bf16",
                   help="autocast precision over fp32 master weights; fp16 uses a gradient scaler (default bf16)")
    p.add_argument("--lr", metavar="LR", type=positive_float, default=None,
                   help="AdamW learning rate (default 1e-4 full, 1e-3 LoRA)")
    p.add_argument("--data", metavar="FILE", type=Path, default=None,
                   help="a text or JSONL file ('text' field) to train on; default: synthetic tokens")
    p.add_argument("--check-against-cpu", metavar="K", type=positive_int, default=None,
                   help="repeat the first K steps in float64 on the CPU and compare the losses")
    p.add_argument("--device", default="auto", help="cuda, cuda:1, cpu, ... (default: first accelerator)")
    p.add_argument("--warmup", metavar="N", type=non_negative_int, default=3,
                   help="first steps left out of the median (default 3)")
    cpu_fallback_option.add_argument(p)
    p.add_argument("--seed", metavar="N", type=int, default=0, help="seed of the weights and the data (default 0)")
    p.add_argument("--threads", metavar="N", type=positive_int, default=None, help="torch CPU threads")
    p.add_argument("--gpus", default=None, metavar="N|all",
                   help="shard over N devices with FSDP2 (torchrun); with --device cpu, N CPU processes (gloo)")
    p.add_argument("--fit-only", action="store_true",
                   help="print the memory plan (inference, LoRA and full training, with and without checkpointing) "
                        "against this device's free memory, or the --card / --memory given; train nothing")
    fit_args.add_arguments(p)
    cold_start_option.add_argument(p, "optimizer step's loss", "first step")
    multinode.add_multinode_arguments(p)
    return p


def model_config(args: Any) -> tuple[LlamaConfig, str]:
    config = preset(args.model)
    if config is None:
        raise WorkloadError(f"unknown model {args.model!r}; known: {known_models()}",
                            hint="--model takes a preset name; --weights DIR loads a local checkpoint")
    name = args.model
    if args.weights is not None:
        from workloads.models.checkpoint_files import check_files
        from workloads.models.llama.hf_config import read_config
        from workloads.models.llama.presets import preset_name

        config = read_config(args.weights)
        check_files(args.weights)  # its shard index and links, before a run directory exists
        name = preset_name(config)
    return config, name


def targets(args: Any) -> tuple[str, ...]:
    names = tuple(t.strip() for t in args.lora_targets.split(",") if t.strip())
    unknown = [t for t in names if t.split(".")[-1] not in TARGETS]
    if not names or unknown:
        raise WorkloadError(f"--lora-targets {','.join(unknown) or repr(args.lora_targets)} matches no product of the "
                            f"model", hint=f"name some of {', '.join(TARGETS)}")
    return tuple(dict.fromkeys(t.split(".")[-1] for t in names))


def expected_world(args: Any) -> int | None:
    """The ranks a run will have, when the options alone say (a number of CPU processes, or inside torchrun)."""
    if data_parallel.in_worker():
        return data_parallel.world_size()
    if args.gpus is None:
        return 1
    if args.gpus.isdigit() and int(args.gpus) > 0:
        return int(args.gpus) * (args.nnodes if isinstance(getattr(args, "nnodes", None), int) else 1)
    return None


def check_batch(batch: int, world: int, accum: int) -> int:
    """The micro-batch each rank runs per accumulation step, or the refusal of a batch that does not divide."""
    if batch % (world * accum):
        raise WorkloadError(f"--batch-size {batch} is not divisible by {world} rank(s) x {accum} accumulation "
                            f"step(s)", hint=f"use a multiple of {world * accum}")
    return batch // (world * accum)


def check(args: Any) -> LlamaConfig:
    """Every refusal the options alone decide; the model's shape."""
    multinode.check(args)
    if fit_args.refusal(args):
        raise WorkloadError(fit_args.refusal(args), hint="add --fit-only, or leave them out to train on this device")
    config, name = model_config(args)
    if args.seq_len > config.max_position_embeddings:
        raise WorkloadError(f"--seq-len {args.seq_len} is beyond {name}'s context of {config.max_position_embeddings}",
                            hint=f"use --seq-len {config.max_position_embeddings} or less")
    args.lora_target_names = targets(args) if args.mode == "lora" else ()
    if not 0.0 <= args.lora_dropout < 1.0:
        raise WorkloadError(f"--lora-dropout {args.lora_dropout} is not a probability below 1", hint="use 0 to 0.5")
    world = expected_world(args)
    if world is not None:
        check_batch(args.batch_size, world, args.grad_accum)
    if args.check_against_cpu is not None:
        if args.check_against_cpu > args.steps:
            raise WorkloadError(f"--check-against-cpu {args.check_against_cpu} is more than the {args.steps} steps "
                                f"of the run", hint=f"use --check-against-cpu {args.steps} or fewer")
        if args.gpus not in (None, "1"):
            raise WorkloadError("--check-against-cpu compares one device's steps", hint="drop --gpus")
        if args.lora_dropout:
            raise WorkloadError("--check-against-cpu needs the same steps on both sides; dropout draws differ",
                                hint="use --lora-dropout 0")
    file_bytes = check_text_file(args.data) if args.data is not None else None
    if not args.fit_only:   # a plan builds nothing: what it says is whether a card would hold it
        budget.check_host(args, config, name, world, file_bytes)
    if multinode.is_multinode(args) and args.gpus is None and not data_parallel.in_worker():
        raise WorkloadError("--nnodes and --rdzv-endpoint need --gpus N|all: the processes on each node")
    return config


def check_text_file(path: Path) -> int:
    """--data must be a non-empty UTF-8 text file (JSONL is text too): its first 64 KB are checked here, every byte
    as the run reads it (workloads/finetune/corpus.py); its size."""
    path = Path(os.path.expanduser(path))
    if not path.is_file():
        raise WorkloadError(f"--data {path}: {'no such file' if not path.exists() else 'not a file'}",
                            hint="give a text file or a JSONL file with a 'text' field per line")
    with open(path, "rb") as f:
        head = f.read(TEXT_SAMPLE_BYTES)
    if not head.strip():
        raise WorkloadError(f"--data {path} is empty", hint="give a file with text in it")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # a character cut at the sample's end is still text
            raise WorkloadError(f"--data {path} is not UTF-8 text (byte {exc.start})",
                                hint="give a text file or a JSONL file with a 'text' field per line") from None
    if b"\0" in head:
        raise WorkloadError(f"--data {path} is not text (it holds NUL bytes)",
                            hint="give a text file or a JSONL file with a 'text' field per line")
    return path.stat().st_size
