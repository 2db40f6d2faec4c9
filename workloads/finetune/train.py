"""The timed steps of a fine-tuning run and its figures.

Each step: the rank's rows of the global batch are cut and copied to the device (data loading, timed
apart), then the step runs; the device is synchronised before the clock is read, and the loss is read
once per step (averaged over the ranks). Tokens/s is the median over the steps after ``--warmup``:
``batch x seq_len`` tokens per step, all devices together and per device. MFU is the model's FLOPs per
token (:mod:`workloads.finetune.flops`, PaLM appendix B) times tokens/s per device over the device's
rated peak for the precision (workloads/facts/rated.csv); N/A where no rated figure exists (the CPU).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from workloads.child import device as devices
from workloads.child.cpu_fallback import FallbackWatch
from workloads.child.harness import Emitter, WorkloadError, log
from workloads.child.train import oom
from workloads.child.train.memory import PeakMemory, total_memory
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA
from workloads.facts.rated import rated_peak
from workloads.finetune import budget, cpu_check, data, flops
from workloads.finetune.options import UNIT
from workloads.finetune.step import Setup, Step
from workloads.models.llama.presets import LlamaConfig
from workloads.finetune.result_record import FinetuneResult


def run(emitter: Emitter, args: Any, config: LlamaConfig) -> int:
    try:
        loop = prepare(emitter, args, config)
        s, step = loop.s, loop.step
        for number in range(1, args.steps + 1):
            loop.run_step(number)
        metrics = loop.figures()
        if args.check_against_cpu:
            metrics.update(cpu_check.compare(s, loop.batches, metrics["losses"][:args.check_against_cpu],
                                             step.requested))
            log(metrics["cpu_check"])
        if s.is_main:
            emitter.result(FinetuneResult.of(metrics))
            log(f"result: {metrics['tokens_per_s']:.4g} tokens/s ({metrics['tokens_per_s_per_device']:.4g} per device), "
                f"MFU {_pct(metrics['mfu'])} of {metrics['rated_words']}, peak {_memory_word(s)} "
                f"{format_bytes(metrics['peak_memory_bytes'])}, grown {format_bytes(metrics['peak_memory_growth_bytes'])}"
                f" since the start (estimate of its tensors {format_bytes(metrics['fit_estimate_bytes'])}"
                f"{'; on the CPU the step runtime and what glibc keeps come on top' if s.device.type == 'cpu' else ''}),"
                f" loss "
                f"{metrics['first_loss']:.4g} -> "
                f"{metrics['final_loss']:.4g}")
            log(f"model FLOPs: {metrics['mfu_formula']}")
        return 0
    finally:
        from workloads.child import data_parallel

        data_parallel.shutdown()


def prepare(emitter: Emitter, args: Any, config: LlamaConfig) -> Loop:
    """The model, optimiser, data and estimate built, the start event sent and the plan logged: ready to step.
    The data is read and checked first, then Setup refuses a step the device cannot hold: before the model is built."""
    batches = _batches(args, config)
    s = Setup(args, config, emitter)
    step = Step(s)
    estimate = budget.step_estimate(args, config, s.micro, s.world)
    s.start(step.requested, data_description=batches.description, fit_estimate_bytes=estimate.total)
    if s.is_main:
        log(f"finetune {args.mode} of {args.model if args.weights is None else args.weights} on {s.device_name}: "
            f"{s.world} rank(s), global batch {args.batch_size} = {s.world} x {args.grad_accum} x {s.micro} "
            f"sequences of {args.seq_len} tokens, precision {step.requested}, lr {s.lr:g}")
        log(f"trainable parameters: {s.trainable:,} of {s.parameters:,} ({s.trainable / s.parameters:.2%})"
            + (f"; LoRA r={args.lora_rank} alpha={args.lora_alpha:g} on {len(s.adapted)} products" if s.adapted
               else ""))
        log(f"data: {batches.description}")
        log(f"fit estimate per device: {format_bytes(estimate.total)} (weights {format_bytes(estimate.weights)}, "
            f"activations {format_bytes(estimate.activations)}, the step's transient peak "
            f"{format_bytes(estimate.transient)}, gradients {format_bytes(estimate.gradients)}, AdamW "
            f"{format_bytes(estimate.optimizer)})")
    return Loop(s, step, batches, estimate)


def _batches(args: Any, config: LlamaConfig) -> data.Batches:
    if args.data is None:
        return data.synthetic(config.vocab_size, args.batch_size, args.seq_len, args.seed)
    return data.from_file(args.data, config.vocab_size, args.batch_size, args.seq_len, args.weights,
                          budget.tokens_needed(args))


def _out_of_memory(s: Setup, step_number: int, estimate: Any, exc: BaseException) -> WorkloadError:
    args = s.args
    total = total_memory(s.device)

    def at(micro: int) -> int:
        return budget.step_estimate(args, s.config, micro, s.world).total

    fits = flops.largest_batch(total, at) if total else 0
    largest = (f"the largest micro-batch that would fit is about {fits} (--batch-size {fits * s.world * s.accum})"
               if fits else "not even one sequence fits: lower --seq-len, use --mode lora or "
                            "--activation-checkpointing, or more --gpus")
    return WorkloadError(
        f"out of memory at step {step_number}: a micro-batch of {s.micro} x {args.seq_len} tokens needs about "
        f"{format_bytes(estimate.total)} by the estimate (weights {format_bytes(estimate.weights)}, activations "
        f"{format_bytes(estimate.activations)}, the step's transient peak {format_bytes(estimate.transient)}, "
        f"gradients and AdamW "
        f"{format_bytes(estimate.gradients + estimate.optimizer)}) of {s.device}'s {format_bytes(total)}; {largest}",
        hint="--activation-checkpointing or --grad-accum cut activations",
        bad_input=False)


class Loop:
    """The timed steps, one :meth:`run_step` each (bench/finetune_vs_bare_loop.py interleaves them with a bare
    loop's), then :meth:`figures`. A step's time runs from the previous step's end to its own, so the loss read,
    the memory read and the step event of each step are in the next one's time.

    The peak memory is a high-water mark (VmHWM on the CPU, ``max_memory_allocated`` on a device): the result
    reads it once, in :meth:`figures`; a step event carries the figure read at most every ``MEMORY_EVERY_S``
    (:class:`~workloads.child.train.memory.PeakMemory`: the first step's, then the newest), as ResNet-50's loop
    does, so a step reads no /proc file of its own."""

    def __init__(self, s: Setup, step: Step, batches: data.Batches, estimate: Any):
        self.s, self.step, self.batches, self.estimate = s, step, batches, estimate
        self.tokens_per_step = s.args.batch_size * s.args.seq_len
        self.rows = slice(s.rank * s.micro * s.accum, (s.rank + 1) * s.micro * s.accum)  # this rank's rows
        self.losses: list[float] = []
        self.rates: list[float] = []
        self.waited = self.spent = 0.0
        self.memory = PeakMemory(s.device)
        # the CPU fallback check profiles the steps right after the warm-up; they are left out as warm-up is
        self.watch = FallbackWatch(s.device, s.emitter if s.is_main else None, s.args.cpu_fallback_check,
                                   after=s.args.warmup, planned=s.args.steps)
        devices.reset_peak_memory(s.device)
        self.t_start = self.t_prev = devices.now(s.device)

    def run_step(self, number: int) -> float:
        """Step ``number`` (1-based) run, timed and sent as a step event; its loss."""
        s, args, dev = self.s, self.s.args, self.s.device
        self.watch.before(number)
        tokens = self.batches.batch_of(number)[self.rows].to(dev, non_blocking=True)
        t_data = time.perf_counter()
        try:
            loss, fell_back = self.step.train_step(tokens, None, number)
        except Exception as exc:  # noqa: BLE001 - out of memory becomes one line; the rest is raised as it is
            if oom.is_out_of_memory(exc):
                raise _out_of_memory(s, number, self.estimate, exc) from None
            raise
        if s.distributed:
            import torch.distributed as dist

            dist.all_reduce(loss)  # gloo has no AVG: the sum over the ranks, divided
            loss = loss / s.world
        t_end = devices.now(dev)
        checked = self.watch.after(number)
        loss_value = float(loss.item())
        self.losses.append(loss_value)
        step_s = t_end - self.t_prev
        warm = number <= args.warmup or fell_back or self.watch.watches(number)
        if not warm or args.steps <= args.warmup:
            self.rates.append(self.tokens_per_step / step_s)
            self.waited += t_data - self.t_prev
            self.spent += step_s
        if s.is_main:
            allocated, reserved = self.memory.at(t_end)
            extra = {"warmup": True} if number <= args.warmup or self.watch.watches(number) else {}
            if fell_back:
                extra["fallback"] = True
            s.emitter.step(number, loss=loss_value, throughput=self.tokens_per_step / step_s, unit=UNIT,
                           step_s=step_s, data_wait_s=t_data - self.t_prev, compute_s=t_end - t_data,
                           tokens_per_s_per_device=self.tokens_per_step / step_s / s.world,
                           memory_allocated_bytes=allocated, memory_reserved_bytes=reserved,
                           total_steps=args.steps, **extra)
        self.t_prev = devices.now(dev) if checked else t_end   # reading the fallback check's trace is no step's time
        return loss_value

    def figures(self) -> dict[str, Any]:
        t_end = devices.now(self.s.device)
        self.watch.finish()   # where the run ended inside the watched steps
        allocated, reserved = self.memory.at(t_end, force=True)   # the peak of every step: read once
        return {**_figures(self.s, self.step, self.estimate, self.losses, self.rates, self.waited, self.spent,
                           t_end - self.t_start, allocated, reserved), **self.watch.figures()}


def _figures(s: Setup, step: Step, estimate: Any, losses: list[float], rates: list[float], waited: float,
             spent: float, total_s: float, allocated: int | None, reserved: int | None) -> dict[str, Any]:
    args = s.args
    tokens_per_s = statistics.median(rates) if rates else None
    per_device = tokens_per_s / s.world if tokens_per_s else None
    f = flops.per_token(s.config, args.seq_len, args.mode, s.trainable)
    precision = step.label.split(" ")[0]  # a fallback to fp32 is read against the fp32 peak
    peak = rated_peak(s.device_name, precision) if s.device.type != "cpu" else None   # matmuls: fp32 is plain FP32
    figure = peak.figure if peak is not None else None
    rated_tflops = peak.value if peak is not None else None
    mfu = flops.mfu(per_device, f.per_token, rated_tflops)
    words = (f"{rated_tflops:g} TFLOP/s rated {figure.replace('_tflops', '').upper()} per device"
             if rated_tflops and figure else "no rated peak for this device (N/A)")
    return {
        "tokens_per_s": tokens_per_s, "tokens_per_s_per_device": per_device,
        "achieved_tflops_per_device": per_device * f.per_token / 1e12 if per_device else None,
        "mfu": mfu, "mfu_formula": f.formula, "model_flops_per_token": f.per_token,
        "rated_tflops": rated_tflops, "rated_figure": figure, "rated_source": peak.source if peak else None,
        "rated_words": words,
        "peak_memory_bytes": allocated, "peak_memory_reserved_bytes": reserved,
        "peak_memory_growth_bytes": _growth(allocated, s.memory_base), "fit_estimate_bytes": estimate.total,
        "fit_estimate": {"weights_bytes": estimate.weights, "activations_bytes": estimate.activations,
                         "transient_bytes": estimate.transient,
                         "gradients_bytes": estimate.gradients, "optimizer_bytes": estimate.optimizer},
        "data_wait_fraction": waited / spent if spent > 0 else None,
        "losses": losses, "first_loss": losses[0] if losses else None, "final_loss": losses[-1] if losses else None,
        "steps": len(losses), "steps_counted": len(rates), "warmup_steps": len(losses) - len(rates),
        "total_s": total_s, "setup_s": time.perf_counter() - s.t_begin - total_s,
        "mode": args.mode, "model_size": args.model if args.weights is None else str(args.weights),
        "seq_len": args.seq_len, "batch_size": args.batch_size, "micro_batch_size": s.micro,
        "grad_accum": args.grad_accum, "activation_checkpointing": bool(args.activation_checkpointing),
        "parameters": s.parameters, "trainable_parameters": s.trainable,
        "lora_rank": args.lora_rank if args.mode == "lora" else None,
        "lora_targets": list(args.lora_target_names), "precision": step.label, "precision_requested": step.requested,
        "fallbacks": step.fallbacks, "compiled": step.compile_scope, "world_size": s.world, "device": s.device_name,
    }


def _growth(peak: int | None, base: int | None) -> int | None:
    """The peak's growth over what the process held before the model: the share the fit estimate counts."""
    return max(peak - base, 0) if peak is not None and base is not None else None


def _memory_word(s: Setup) -> str:
    """On the CPU the peak is the process's RSS: torch's own libraries are in it, and not in the estimate."""
    return "RSS of the process (torch's libraries included)" if s.device.type == "cpu" else "memory allocated"


def _pct(value: float | None) -> str:
    return f"{value:.1%}" if value is not None else NA

