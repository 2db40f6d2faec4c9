"""Stand-in results of `cardbench ready`'s sub-runs, shaped as the workloads give them (the keys their records
declare), and the readiness they make: the rows' tests read these instead of running a model."""

from __future__ import annotations

from tui.ready.readiness import Readiness
from tui.ready.rows import rows_of


def fit(fits: bool = True, lora_fits: bool = True) -> dict:
    return {"model_size": "tiny", "dtype": "bf16", "free_bytes": 80 * 2**30, "input_len": 512, "output_len": 128,
            "batch_size": 1, "largest_batch": 212, "largest_context": 131072,
            # the plan's rows (workloads/models/llama/fit_plan.py): a verdict per target, this device's the first
            "fit": [{"use": "inference", "total_bytes": 17 * 2**30, "targets": [{"fits": fits}]},
                    {"use": "train LoRA r16", "total_bytes": 30 * 2**30, "targets": [{"fits": lora_fits}]},
                    {"use": "train LoRA r16, activation checkpointing", "total_bytes": 20 * 2**30,
                     "targets": [{"fits": True}]}]}


def scan(failures: list | None = None, fallback: int = 0) -> dict:
    failures = failures or []
    bad = len(failures)
    return {"by_dtype": {"bf16": {"ok": 56 - bad - fallback, "error": bad, "cpu_fallback": fallback}},
            "failures": failures, "rows": 56, "rows_failed": bad + fallback}


def loss(ok: bool = True) -> dict:
    return {"cpu_check_ok": ok, "cpu_check_max_relative_difference": 0.004 if ok else 0.2, "cpu_check_bound": 0.03,
            "cpu_check_losses": [9.1, 9.0], "precision": "bf16"}


def perf(decode_share: float = 0.62, prefill_share: float | None = 0.41, **more) -> dict:
    rate = 100.0
    return {"prefill_tokens_per_s": 9000.0, "prefill_peak_fraction": prefill_share, "rated_tflops": 989.0,
            "rated_source": "rated.csv", "decode_tokens_per_s": rate, "decode_bound_tokens_per_s": rate / decode_share,
            "device_read_gbps": 3000.0, "bandwidth_method": "device copy", "tpot_p50_s": 0.01, "ttft_s": 0.05,
            **more}


def finetune(mfu: float | None = 0.38, **more) -> dict:
    return {"tokens_per_s": 5000.0, "mfu": mfu, "rated_tflops": 989.0 if mfu else None, "mode": "lora",
            "precision": "bf16", "rated_words": None if mfu else "no rated peak for this device (N/A)", **more}


COLD = {"cold_start_s": 41.5, "cold_start_import_s": 3.1, "cold_start_device_s": 2.2, "cold_start_read_s": 30.0,
        "cold_start_read_state": "cold (page cache dropped)", "cold_start_read_bytes": 16 * 10**9,
        "cold_start_build_s": 4.0, "cold_start_compile_s": 0.0, "cold_start_first_token_s": 2.2}


def results(**changed) -> dict:
    """The results by the question they answer (as `tui.ready.runs.Gave` keeps them): ``perf=`` the one-cell llm
    run's, which answers prefill and decode; ``NAME=None`` leaves a question unanswered."""
    made = {"fit": fit(), "ops": scan(), "loss": loss(), "perf": perf(), "finetune": finetune(), "cold_start": COLD}
    made.update(changed)
    cell = made.pop("perf")
    made.update(prefill=cell, decode=cell)
    return {k: v for k, v in made.items() if v is not None}


def readiness(model: str = "Llama-3.1-8B", dtype: str = "bf16", price: float | None = None, currency: str = "USD",
              device: str = "NVIDIA H100 80GB HBM3", speed: float = 1.0, **changed) -> Readiness:
    made = results(**changed)
    for key in ("prefill_tokens_per_s", "decode_tokens_per_s", "decode_bound_tokens_per_s"):
        if "decode" in made and made["decode"].get(key):
            made["decode"][key] *= speed
    if "finetune" in made:
        made["finetune"]["tokens_per_s"] *= speed
    rows = rows_of(made, {}, dtype, None)
    return Readiness(model=model, dtype=dtype, device=device, rows=tuple(rows), budget_s=900.0, wall_s=600.0,
                     price_per_hour=price, currency=currency, runs=("r1", "r2"))
