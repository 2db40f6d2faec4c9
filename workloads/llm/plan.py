"""What an llm command asks for, checked before torch is imported: the model, the cells, the limits.

Everything here is decided by the arguments alone (and a --weights directory's config.json), so a
refusal is one line and exit 2 before a run directory exists (``cardbench run`` checks first).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.errors import clipped
from workloads.facts.formatting import format_bytes
from workloads.llm import bench_tests, output_option
from workloads.llm.bench_tests import BenchTest
from workloads.llm.cell_name import cell_name
from workloads.llm.output_option import Output
from workloads.models.llama.presets import LlamaConfig, known_models, preset, preset_name

# the sweep's defaults: the readiness table on an accelerator, a few small cells on the CPU
SWEEP = {"input": (128, 1024, 2048), "output": (128, 1024), "batch": (1, 8, 32)}
CPU_SWEEP = {"input": (32, 128), "output": (16, 64), "batch": (1, 4)}
# the most cells a sweep may ask for: each is a warm-up and --repeat timed generations (the standard suite's sweep
# has 4, the readiness table's default 18), so 1,024 is days of work already; the count is the product of the
# lists' distinct values, never built to be counted (2,063 values each would be 8.8 x 10^9 cells)
MAX_CELLS = 1024


@dataclass(frozen=True)
class Cell:
    input_len: int
    output_len: int
    batch: int

    @property
    def context(self) -> int:
        return self.input_len + self.output_len

    def label(self) -> str:
        return cell_name(self.input_len, self.output_len, self.batch)


@dataclass(frozen=True)
class Plan:
    config: LlamaConfig
    model: str                 # the preset's name, or "custom <family>, <shape>" for a checkpoint of another shape
    cells: tuple[Cell, ...]
    sweep: bool
    pp: int                    # llama-bench's first prompt processing length (pp512), 0 for none
    tg: int                    # llama-bench's first text generation length (tg128), 0 for none
    prompt_ids: tuple[int, ...] | None = None   # --prompt's tokens: the one cell's prompt, each sequence
    tokenizer: Any = None      # the --weights directory's, with --prompt (tokenizers.Tokenizer)
    tests: tuple[BenchTest, ...] = ()   # llama-bench's tests: each --pp and --tg length at each --depth
    output: Output = Output("md")       # --output: the format the terminal prints, the file written


def int_list(text: str) -> tuple[int, ...]:
    """'128,1024' -> (128, 1024): whole numbers of 1 or more, for argparse's type=."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{clipped(text, quote=True)} is not a comma-separated list of whole "
                                         "numbers") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"{clipped(text, quote=True)}: each value must be a whole number of 1 or more")
    return values


def make_plan(args: argparse.Namespace, on_cpu: bool) -> Plan:
    """The model and cells asked for; WorkloadError (exit 2) for what cannot run whatever the device."""
    config = preset(args.model)
    if config is None:
        raise WorkloadError(f"unknown model {args.model!r}; known: {known_models()}",
                            hint="--model takes a preset name; --weights DIR loads a local checkpoint")
    name = preset_name(config)
    if args.weights is not None:
        from workloads.models.checkpoint_files import check_files
        from workloads.models.llama.hf_config import config_path, read_config

        config = read_config(args.weights)
        check_modules(config, str(config_path(args.weights)))  # the presets' modules are a few MB
        check_files(args.weights)  # its shard index and links, before a run directory exists
        name = preset_name(config)
        if name == "custom":  # named by its shape, so compare tells two custom checkpoints apart
            name = (f"custom {config.family}, {config.num_hidden_layers} layers x {config.hidden_size}, "
                    f"{config.parameter_count():,} parameters")
    defaults = CPU_SWEEP if on_cpu else SWEEP
    tokenizer, prompt_ids, input_lens = None, None, args.input_len_list
    if args.prompt is not None:
        for flag, given in (("--sweep", args.sweep), ("--input-len", args.input_len_list)):
            if given:
                raise WorkloadError(f"--prompt and {flag} are exclusive",
                                    hint="the prompt's tokens are the input length of the one cell it runs")
        from workloads.llm.prompt import tokenize

        tokenizer, prompt_ids = tokenize(args.weights, args.prompt, config.vocab_size)
        input_lens = (len(prompt_ids),)
    if args.sweep:
        cells = sweep_cells(input_lens or defaults["input"], args.output_len_list or defaults["output"],
                            args.batch_list or defaults["batch"])
    else:
        one = lambda values, default: values[0] if values else default  # noqa: E731
        cells = (Cell(one(input_lens, 128), one(args.output_len_list, 128), one(args.batch_list, 1)),)
        for flag, values in (("--input-len", args.input_len_list), ("--output-len", args.output_len_list),
                             ("--batch-size", args.batch_list)):
            if values and len(values) > 1:
                raise WorkloadError(f"{flag} {clipped(','.join(map(str, values)))}: a list needs --sweep",
                                    hint="one cell takes one value each; --sweep runs every combination")
    longest = max(c.context for c in cells)
    if longest > config.max_position_embeddings:
        raise WorkloadError(f"input + output is {longest} positions, beyond {name}'s context of "
                            f"{config.max_position_embeddings}", hint="lower the lengths")
    tests = bench_tests.tests(args.pp, args.tg, args.depth)
    past = bench_tests.past_context(tests, config.max_position_embeddings)
    if past is not None:
        raise WorkloadError(f"{past.name} needs {past.positions} positions, beyond {name}'s context of "
                            f"{config.max_position_embeddings}", hint="a smaller --depth, --pp or --tg")
    output = output_option.parse(args.output)
    return Plan(config, name, cells, bool(args.sweep), args.pp[0] if args.pp else 0, args.tg[0] if args.tg else 0,
                prompt_ids, tokenizer, tests, output)


def sweep_cells(inputs: tuple[int, ...], outputs: tuple[int, ...], batches: tuple[int, ...]) -> tuple[Cell, ...]:
    """Every input x output x batch cell, batch by batch; refused when the lists' distinct values multiply past
    :data:`MAX_CELLS` (counted before any cell is built)."""
    lists = [sorted(set(values)) for values in (inputs, outputs, batches)]
    count = len(lists[0]) * len(lists[1]) * len(lists[2])
    if count > MAX_CELLS:
        raise WorkloadError(f"--sweep asks for {' x '.join(f'{len(v):,}' for v in lists)} = {count:,} cells; at most "
                            f"{MAX_CELLS:,}", hint="fewer values in --input-len, --output-len or --batch-size")
    return tuple(Cell(i, o, b) for b in lists[2] for i in lists[0] for o in lists[1])


def host_room() -> tuple[int, str] | None:
    """The host memory this process can take, and what sets it: the RAM available now, or the address-space limit
    (ulimit -v, a container's) when that is lower; None when neither can be told."""
    rooms = []
    try:
        import psutil

        rooms.append((int(psutil.virtual_memory().available), "available on the host"))
    except Exception:  # noqa: BLE001 - no figure, no refusal: the allocator still has its say
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            rooms.append((soft, "of address space (ulimit -v)"))
    except (ImportError, OSError, ValueError):
        pass
    return min(rooms) if rooms else None


def check_modules(config: LlamaConfig, source: str) -> None:
    """Refuse a shape whose module objects alone outgrow the host before torch is imported or anything is built: they
    live on the host whatever the device (10^6 layers of width 2 are 128 MB of tensors and ~25 GB of modules)."""
    from workloads.models.llama.fit import module_bytes

    need, room = module_bytes(config), host_room()
    if room is not None and need > room[0]:
        raise WorkloadError(f"{source}: {config.num_hidden_layers:,} layers are about {format_bytes(need)} of module "
                            f"objects before any weight; the host has {format_bytes(room[0])} {room[1]}",
                            hint="a published model has at most a few hundred layers: a damaged or hostile "
                                 "config.json")


def identity(plan: Plan) -> dict[str, Any]:
    """What two runs must share for compare to set them side by side (tui/compare/alike.py reads these keys, and
    the dtype, by name): the model, the cells (a sweep's lists, or "off" and the one cell's lengths and batch, so
    a sweep and one cell differ by name) and llama-bench's pp/tg lengths."""
    keys: dict[str, Any] = {"model_size": plan.model, "sweep": sweep_key(plan) if plan.sweep else "off",
                            "pp": plan.pp, "tg": plan.tg}
    if not plan.sweep:
        first = plan.cells[0]
        keys.update(input_len=first.input_len, output_len=first.output_len, batch_size=first.batch)
    return keys


def sweep_key(plan: Plan) -> str:
    """What two sweeps must share to be compared: their lists, as one text."""
    lists = [sorted({getattr(c, f) for c in plan.cells}) for f in ("input_len", "output_len", "batch")]
    return " x ".join(",".join(map(str, v)) for v in lists)
