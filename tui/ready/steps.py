"""What `cardbench ready` runs: one sub-run per step, each a registered workload with its arguments, sized for the
CPU or for an accelerator, and each step's share of the budget (torch-free, UI-free).

The steps name workloads by their registry name only (tui/ reads a workload through its spec): the llm workload's
fit and its one-cell prefill and decode, the op scan on the Llama sources (the model's traced ops: decode as llm runs
it, a training step as finetune runs it), finetune's float64 CPU replay and its own timed run, and the llm workload's
cold start. The read of the user's data is not a run (`tui.ready.data_read`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DTYPES = ("fp32", "fp16", "bf16")
# the op scan's built-in sources that trace what llm and finetune dispatch (workloads/opscan/llama_*.py)
OPS_SOURCES = "llama-decode,llama-train"
AMP = {"fp32": "off", "fp16": "fp16", "bf16": "bf16"}   # finetune's --amp for the chosen dtype


@dataclass(frozen=True)
class Step:
    """One sub-run. ``weight``: its part of the budget against the others'; ``floor_s``: the least time it needs
    (with less left it is skipped, with the reason); ``answers``: the questions its result answers."""

    name: str
    workload: str
    args: tuple[str, ...]
    weight: float
    floor_s: float
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Model:
    """What is asked for: a preset or a local checkpoint, the dtype, the device."""

    preset: str = "tiny"
    weights: Path | None = None
    dtype: str = "fp32"
    device: str | None = None

    def args(self) -> tuple[str, ...]:
        chosen = ("--weights", str(self.weights)) if self.weights is not None else ("--model", self.preset)
        return chosen + (("--device", self.device) if self.device else ())

    @property
    def name(self) -> str:
        """The model as the readiness record names it (and --against compares): the checkpoint's folder name or
        the preset."""
        return self.weights.name if self.weights is not None else self.preset


# (prompt tokens, generated tokens) of the one cell, on the CPU and on a card
_CELL = {True: ("32", "16"), False: ("512", "128")}
# (steps, batch, sequence, warm-up) of the timed fine-tune, and (steps, batch, sequence) of the float64 replay's run:
# the replay runs the model in float64 on the host, so on a card it is a run of its own, few and short whatever the
# card (an 8B model's replay at the timed run's batch would take the host an hour a step)
# (the CPU's: one warm-up step and the three measured steps a figure needs, workloads/facts/warmup.py)
_FINETUNE = {True: ("4", "2", "32", "1"), False: ("30", "8", "512", "5")}
_REPLAY = ("2", "1", "64")
K_CPU = "2"   # on the CPU the timed run replays its own first steps: they are as cheap as the replay's
# seconds a step needs at least: on a card an 8B model takes a minute to build and load
_FLOOR = {True: {"ops": 20, "perf": 15, "finetune": 25, "cold_start": 15},
          False: {"fit": 20, "ops": 60, "loss": 120, "perf": 90, "finetune": 120, "cold_start": 60}}


def plan(model: Model, on_cpu: bool) -> list[Step]:
    """The steps in the order they run. On a card the fit comes first, alone (cheap, and a model that does not fit
    fails every later step) and the float64 replay is a short run of its own. On the CPU each child costs seconds of
    start-up on a shared host, so the one-cell run answers the fit too and the timed fine-tune replays its own
    first steps: four runs (six took 204 s on a 2-core host under a load of 14; issue 38 asks for three minutes)."""
    base, d, floor = model.args(), model.dtype, _FLOOR[on_cpu]
    inp, out = _CELL[on_cpu]
    cell = ("--input-len", inp, "--output-len", out, "--batch-size", "1")
    steps, batch, seq, warmup = _FINETUNE[on_cpu]
    tune = base + ("--mode", "lora", "--amp", AMP[d])
    # llama-bench's tg of the cell's output length: llm's headline, so the report's summary has the run's figure
    perf = Step("perf", "llm", base + ("--dtype", d) + cell + ("--repeat", "1" if on_cpu else "3", "--pp", "0",
                                                               "--tg", out, "-r", "1" if on_cpu else "3"),
                0.2, floor["perf"], ("fit", "prefill", "decode") if on_cpu else ("prefill", "decode"))
    ops = Step("ops", "opscan", ("--sources", OPS_SOURCES, "--dtypes", d, "--repeats", "1")
               + (("--device", model.device) if model.device else ()), 0.17, floor["ops"], ("ops",))
    timed = tune + ("--steps", steps, "--batch-size", batch, "--seq-len", seq, "--warmup", warmup)
    cold = Step("cold_start", "llm", base + ("--dtype", d, "--cold-start") + cell + ("--repeat", "1", "--pp", "0",
                                                                                    "--tg", "0"),
                0.15, floor["cold_start"], ("cold_start",))
    if on_cpu:
        return [perf, ops, Step("finetune", "finetune", timed + ("--check-against-cpu", K_CPU), 0.45,
                                floor["finetune"], ("loss", "finetune")), cold]
    k, rbatch, rseq = _REPLAY
    return [Step("fit", "llm", base + ("--dtype", d, "--fit-only") + cell, 0.03, floor["fit"], ("fit",)), ops,
            Step("loss", "finetune", tune + ("--steps", k, "--batch-size", rbatch, "--seq-len", rseq, "--warmup", "0",
                                             "--check-against-cpu", k), 0.15, floor["loss"], ("loss",)),
            perf, Step("finetune", "finetune", timed, 0.3, floor["finetune"], ("finetune",)), cold]


def resolve_dtype(asked: str, on_cpu: bool, best_autocast: str) -> str:
    """``auto``: fp32 on the CPU (its bf16 is emulated), else the mixed precision the doctor saw run on the card
    (bf16 before fp16), else fp32."""
    if asked != "auto":
        return asked
    if on_cpu:
        return "fp32"
    return best_autocast if best_autocast in DTYPES else "fp32"
