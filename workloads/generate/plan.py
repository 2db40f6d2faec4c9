"""What a generate command asks for, checked before torch is imported: the GPT-2 shape, the prompt, the limits."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.models import tokenizer as gpt2_tokenizer
from workloads.models.gpt2.config import SIZES, GPT2Config, read_config, size_name


@dataclass(frozen=True)
class Plan:
    config: GPT2Config
    size: str
    prompt_len: int
    prompt_ids: list[int] | None
    tokenizer: Any
    warnings: tuple[str, ...] = ()


def make_plan(args: argparse.Namespace) -> Plan:
    """Shape, prompt and limits, checked before any torch work; raises WorkloadError on bad input."""
    config = SIZES[args.model_size or "124M"]
    if args.weights is not None:
        from workloads.models.checkpoint_files import weights_files

        weights_files(args.weights)  # a missing dir or checkpoint fails now, before the model is built
        found = read_config(args.weights)
        if found is not None:
            config = found
    size = size_name(config)
    warnings = []
    if args.model_size and args.weights is not None and size != args.model_size:
        warnings.append(f"{args.weights}/config.json describes GPT-2 {size}; --model-size {args.model_size} ignored")
    if args.top_k is not None and args.temperature == 0:
        raise WorkloadError("--top-k needs sampling: give --temperature above 0",
                            hint="greedy decoding (temperature 0) ignores top-k")
    if args.cuda_graphs and args.compile:
        raise WorkloadError("--compile and --cuda-graphs are exclusive",
                            hint="--compile already uses CUDA graphs on cuda")
    tokenizer, prompt_ids = None, None
    prompt_len = args.prompt_len
    if args.prompt is not None:
        tokenizer = gpt2_tokenizer.load(gpt2_tokenizer.find(args.tokenizer, args.weights))
        prompt_ids = gpt2_tokenizer.encode(tokenizer, args.prompt, config.vocab_size)
        prompt_len = len(prompt_ids)
    if prompt_len + args.tokens > config.n_ctx:
        raise WorkloadError(f"prompt ({prompt_len}) plus new tokens ({args.tokens}) is {prompt_len + args.tokens} "
                            f"positions, beyond the model's context of {config.n_ctx}",
                            hint="lower --tokens or --prompt-len")
    return Plan(config, size, prompt_len, prompt_ids, tokenizer, tuple(warnings))
