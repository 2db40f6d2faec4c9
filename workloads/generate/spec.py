"""What the workbench, the headless suite and the report know of GPT-2 token generation (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.generate.result_record import GenerateResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SWITCH, SuiteArgs, WorkloadSpec, option, positive

# the workload's defaults: its parser (cli.py) takes them from here
TOKENS, REPEAT = 256, 3


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Decoded tokens over the timed runs (``--tokens`` x ``--repeat``): a step event counts tokens.

    The warm-up's tokens are not in it: they emit no step (so the ETA, from the rate of the steps seen, is the
    time to the last timed token; the bandwidth re-measured after it adds a second or two).
    """
    tokens = positive(config.get("tokens")) or positive(option(args, "--tokens")) or TOKENS
    repeat = positive(config.get("repeat")) or positive(option(args, "--repeat")) or REPEAT
    return tokens * repeat


SPEC = WorkloadSpec(
    name="generate",
    title=Message("workload.generate.title"),
    result=GenerateResult,
    params=(
        Param("tokens", "tokens", "--tokens", "256", "int", max=1024),
        Param("batch_size", "batch size", "--batch-size", "1", "int", max=256),
        Param("dtype", "dtype", "--dtype", "auto", "choice", ("auto", "fp32", "fp16", "bf16"), omit=("auto",)),
        # not "tiny": its context (64) is below the default tokens
        Param("model_size", "model size", "--model-size", "124M", "choice", ("124M", "355M", "774M", "1.5B")),
        Param("prompt_len", "prompt length", "--prompt-len", "32", "int", max=1024),
        Param("repeat", "timed runs", "--repeat", "3", "int", max=100),
        Param("cuda_graphs", "CUDA graphs", "--cuda-graphs", "off", "switch", SWITCH),
        Param("compile", "torch.compile", "--compile", "off", "switch", SWITCH),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
    ),
    suite=SuiteArgs(
        quick=("--tokens", "256"),
        standard=("--tokens", "256", "--repeat", "5"),
        cpu_quick=("--tokens", "256", "--repeat", "1", "--warmup", "8"),
        cpu_standard=("--tokens", "256", "--repeat", "1", "--warmup", "8"),
        cpu_quick_note=Message("workload.generate.cpu_quick_note"),
        cpu_standard_note=Message("workload.generate.cpu_standard_note"),
        budget_flag="--time-budget",
    ),
    counts="tokens",
    progress=Message("workload.generate.progress"),  # tokens x timed runs: the warm-up emits no step and is not counted
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
)
