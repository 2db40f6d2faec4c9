"""The readiness table's rows: one per question, judged from the results of the sub-runs (torch-free, UI-free).

Each row is FlagPerf's form: the figure measured, the bound or rating it is read against (same unit), their ratio,
and a verdict (PASS / WARN / FAIL, or N/A where the figure does not exist here) with the evidence in English and
Chinese. A row reads only the result keys it names; a key a sub-run did not give (a cardbench without the cold start
or CPU-fallback measurement, a step skipped for the budget) makes the row N/A with the reason, never a zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from tui.i18n.voice import quoted
from tui.ready.data_read import BYTES_PER_TOKEN, READ_S, DataRead
from workloads.catalogue import LANGS, Message, joined, message, say
from workloads.cold_start.words import state_message
from workloads.facts.formatting import format_bytes, format_duration, format_number, percent
from workloads.facts.missing import NA, finite_or_none

PASS, WARN, FAIL, NA_VERDICT = "PASS", "WARN", "FAIL", "N/A"
QUESTIONS = ("fit", "ops", "loss", "prefill", "decode", "finetune", "cold_start", "data_io")

# a throughput at under this share of its bound is a WARN: the card runs it, but far from what it is rated for.
# Decode is bound by memory bandwidth and reaches 50-80 % of it in good kernels; prefill and training by compute,
# where 30-50 % of the rated peak (MFU) is what tuned stacks report, so a third of those is the floor
LOW_SHARE = {"prefill": 0.15, "decode": 0.3, "finetune": 0.15}
# a cold start past this is a WARN: a job that must start within a minute cannot scale to zero on this card
COLD_START_S = 60.0
FALLBACK_SHOWN = 3   # ops named in an evidence line; the run's result lists them all


def words(key: str, /, **params: Any) -> dict[str, str]:
    """A catalogue sentence said in both languages now (``ready.<key>``), for a record read back without the run."""
    return {lang: say(f"ready.{key}", lang, **params) for lang in LANGS}


@dataclass(frozen=True)
class Row:
    """One question's answer. ``measured`` and ``bound`` share ``unit``; ``lower_is_better`` for a size or a time,
    so a reference's ratio reads the right way; ``speed``: a rate that the price-performance row averages;
    ``estimate``: ``measured`` is a plan's estimate, not a measurement (the fit), and the table says so."""

    question: str
    verdict: str
    evidence: dict[str, str]
    measured: float | None = None
    bound: float | None = None
    unit: str = ""
    lower_is_better: bool = False
    speed: bool = False
    estimate: bool = False

    @property
    def ratio(self) -> float | None:
        if self.measured is None or not self.bound:
            return None
        return self.measured / self.bound

    def said(self, lang: str) -> str:
        return self.evidence.get(lang) or self.evidence.get("en", "")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Row":
        evidence = data.get("evidence")
        return cls(question=str(data.get("question", "")), verdict=str(data.get("verdict", NA_VERDICT)),
                   evidence={k: str(v) for k, v in evidence.items()} if isinstance(evidence, dict) else {},
                   measured=finite_or_none(data.get("measured")), bound=finite_or_none(data.get("bound")),
                   unit=str(data.get("unit") or ""), lower_is_better=bool(data.get("lower_is_better")),
                   speed=bool(data.get("speed")), estimate=bool(data.get("estimate")))


def not_measured(question: str, why: dict[str, str]) -> Row:
    """A question this run has no figure for, and why (a skipped step, a failed run, no such measurement)."""
    return Row(question, NA_VERDICT, why)


def _number(metrics: Mapping[str, Any], key: str) -> float | None:
    value = metrics.get(key)
    return None if isinstance(value, bool) else finite_or_none(value)


def fit_row(m: Mapping[str, Any]) -> Row:
    """Does it fit: the inference estimate at the cell against the free memory, LoRA training beside it. The plan's
    row as the plan gives it for this device (its lines are the plan's to choose: a CPU holds no driver context), an
    estimate, said as one."""
    table = {r.get("use"): r for r in m.get("fit") or [] if isinstance(r, dict)}
    inference = table.get("inference") or {}
    lora = next((r for use, r in table.items() if str(use).startswith("train LoRA") and "checkpointing" not in
                 str(use)), {})
    need, free = _number(inference, "total_bytes"), _number(m, "free_bytes")
    if need is None:
        return not_measured("fit", words("why.no_figure", key=quoted("fit")))
    fits_now, lora_fits = fits(inference), fits(lora)
    verdict = (FAIL if fits_now is False else WARN if lora_fits is False else PASS if fits_now else NA_VERDICT)
    evidence = words("fit.evidence", need=format_bytes(need), free=format_bytes(free),
                     batch=format_number(m.get("batch_size")),
                     context=format_number((m.get("input_len") or 0) + (m.get("output_len") or 0)),
                     largest_batch=format_number(m.get("largest_batch")),
                     largest_context=format_number(m.get("largest_context")),
                     lora=format_bytes(lora.get("total_bytes")), dtype=quoted(m.get("dtype") or NA))
    return Row("fit", verdict, evidence, need, free, "B", lower_is_better=True, estimate=True)


def fits(row: Mapping[str, Any]) -> bool | None:
    """Whether a use of the fit fits this device: a plan's row says it per target (the first is this device's free
    memory when no card is named, `workloads.models.llama.fit_plan`), a run recorded before plans had targets says
    it on the row."""
    targets = row.get("targets")
    if isinstance(targets, list) and targets and isinstance(targets[0], dict):
        return targets[0].get("fits")
    return row.get("fits")


def ops_row(scan: Mapping[str, Any], dtype: str, runs: Mapping[str, Mapping[str, Any]]) -> Row:
    """Do the model's traced ops run right on the card in ``dtype`` (the scan), and did the runs themselves send any
    op to the CPU (``cpu_fallback_ops`` of the llm and finetune results, where this cardbench measures it)?"""
    counts = (scan.get("by_dtype") or {}).get(dtype)
    if not isinstance(counts, dict):
        return not_measured("ops", words("why.no_dtype", dtype=quoted(dtype)))
    total = sum(v for v in counts.values() if isinstance(v, int))
    ok = counts.get("ok") or 0
    failures = [f for f in scan.get("failures") or [] if isinstance(f, dict) and f.get("dtype") == dtype]
    # an op the scan saw leave the card is a WARN, as one the runs name; one that fails or differs is a FAIL
    failing = sorted({f.get("op", "?") for f in failures if f.get("status") != "cpu_fallback"})
    fallbacks = _fallbacks(runs)
    verdict = FAIL if failing else WARN if fallbacks or counts.get("cpu_fallback") else PASS
    scanned = words("ops.scan", ok=format_number(ok), total=format_number(total), dtype=quoted(dtype),
                      failing=quoted(", ".join(failing[:FALLBACK_SHOWN])) if failing else Message("ready.ops.none"))
    left = _fallback_words(fallbacks, runs)
    evidence = {lang: joined((scanned[lang], left[lang]), lang) for lang in LANGS}
    return Row("ops", verdict, evidence, ok, total, "")


def _fallbacks(runs: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every op the runs name as run on the CPU while the model lived on the card, the most costly first."""
    found = [f for m in runs.values() for f in m.get("cpu_fallback_ops") or [] if isinstance(f, dict)]
    return sorted(found, key=lambda f: -(finite_or_none(f.get("share_of_step")) or 0.0))


def _fallback_words(fallbacks: list[dict[str, Any]], runs: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    measured = any("cpu_fallback_ops" in m for m in runs.values())
    if not measured and any(str(m.get("device") or "").startswith("cpu") for m in runs.values()):
        return words("ops.fallback_on_cpu")   # the check watches a model on a card: on the CPU nothing can leave it
    if not measured:
        return words("ops.fallback_unmeasured")
    if not fallbacks:
        copies = [c for c in (_number(m, "host_device_copies_per_step") for m in runs.values()) if c is not None]
        return words("ops.no_fallback", copies=format_number(max(copies)) if copies else NA)
    named = ", ".join(f"{f.get('op', '?')} ({format_number(f.get('calls_per_step'))}/step, "
                      f"{percent(f.get('share_of_step'))})" for f in fallbacks[:FALLBACK_SHOWN])
    return words("ops.fallback", n=len(fallbacks), ops=quoted(named))


def loss_row(m: Mapping[str, Any]) -> Row:
    """Does the loss agree with the float64 replay on the CPU, within the precision's bound?"""
    worst, bound = _number(m, "cpu_check_max_relative_difference"), _number(m, "cpu_check_bound")
    if worst is None or m.get("cpu_check_ok") is None:
        return not_measured("loss", words("why.no_figure", key=quoted("cpu_check")))
    steps = len(m.get("cpu_check_losses") or []) or NA
    verdict = PASS if m.get("cpu_check_ok") else FAIL
    evidence = words("loss.evidence", k=steps, worst=f"{worst:.2e}", bound=format_number(bound),
                     precision=quoted(m.get("precision") or NA))
    return Row("loss", verdict, evidence, worst, bound, "", lower_is_better=True)


def _duration(seconds: Any) -> Any:
    """A duration said in each language's units when the sentence is ('16.8 ms', '16.8 毫秒'); N/A for none."""
    value = finite_or_none(seconds)
    return NA if value is None else (lambda lang: format_duration(value, lang))


def _read_state(m: Mapping[str, Any]) -> Any:
    """The weights' read, cold or warm, in each language; a state another version wrote, quoted as written."""
    said = state_message(m.get("cold_start_read_state"))
    return said if isinstance(said, Message) else quoted(said)


def _no_mfu_why(m: Mapping[str, Any]) -> Any:
    """Why the fine-tune has no MFU: no rated peak for the device (the usual reason, said in each language), else the
    run's own words."""
    if _number(m, "rated_tflops") is None:
        return Message("ready.finetune.no_rated_peak")
    return quoted(m.get("rated_words") or NA)


def _share_verdict(question: str, ratio: float | None) -> str:
    if ratio is None:
        return NA_VERDICT
    if ratio > 1.0:
        return WARN   # past its physical bound: the bound or the timing is wrong, never a result
    return PASS if ratio >= LOW_SHARE[question] else WARN


def prefill_row(m: Mapping[str, Any]) -> Row:
    """Prefill tokens/s against what the rated compute peak allows at the same FLOPs per token."""
    rate, share = _number(m, "prefill_tokens_per_s"), _number(m, "prefill_peak_fraction")
    if rate is None:
        return not_measured("prefill", words("why.no_figure", key=quoted("prefill_tokens_per_s")))
    bound = rate / share if share else None
    verdict = _share_verdict("prefill", share)
    evidence = (words("prefill.evidence", rate=format_number(rate), share=percent(share),
                      peak=format_number(m.get("rated_tflops")), source=quoted(m.get("rated_source") or NA))
                if bound else words("prefill.no_peak", rate=format_number(rate)))
    return Row("prefill", verdict, evidence, rate, bound, "tokens/s", speed=True)


def decode_row(m: Mapping[str, Any]) -> Row:
    """Decode tokens/s against the memory bandwidth bound (the bytes a step reads at the measured bandwidth)."""
    rate, bound = _number(m, "decode_tokens_per_s"), _number(m, "decode_bound_tokens_per_s")
    if rate is None:
        return not_measured("decode", words("why.no_figure", key=quoted("decode_tokens_per_s")))
    ratio = rate / bound if bound else None
    evidence = words("decode.evidence", rate=format_number(rate), bound=format_number(bound), share=percent(ratio),
                     read=format_number(m.get("device_read_gbps")), method=quoted(m.get("bandwidth_method") or NA),
                     tpot=_duration(m.get("tpot_p50_s")), ttft=_duration(m.get("ttft_s")))
    return Row("decode", _share_verdict("decode", ratio), evidence, rate, bound, "tokens/s", speed=True)


def finetune_row(m: Mapping[str, Any]) -> Row:
    """Fine-tune tokens/s, read against the tokens/s the rated peak would give (their ratio is the MFU)."""
    rate, mfu = _number(m, "tokens_per_s"), _number(m, "mfu")
    if rate is None:
        return not_measured("finetune", words("why.no_figure", key=quoted("tokens_per_s")))
    bound = rate / mfu if mfu else None
    evidence = (words("finetune.evidence", rate=format_number(rate), mfu=percent(mfu),
                      peak=format_number(m.get("rated_tflops")), mode=quoted(m.get("mode") or NA),
                      precision=quoted(m.get("precision") or NA))
                if bound else words("finetune.no_peak", rate=format_number(rate), mode=quoted(m.get("mode") or NA),
                                    why=_no_mfu_why(m)))
    return Row("finetune", _share_verdict("finetune", mfu), evidence, rate, bound, "tokens/s", speed=True)


def cold_start_row(m: Mapping[str, Any]) -> Row:
    """Fresh process to first token, and its parts (the llm workload's --cold-start, where this cardbench has it)."""
    total = _number(m, "cold_start_s")
    if total is None:
        return not_measured("cold_start", words("why.no_cold_start"))
    # each phase a duration in the language's units, as the table's total is (a phase that did not run, compile
    # without --compile, is N/A)
    parts = {k: _duration(m.get(f"cold_start_{k}_s")) for k in ("import", "device", "read", "build", "compile",
                                                                  "first_token")}
    evidence = words("cold_start.evidence", total=_duration(total), state=_read_state(m),
                     read_bytes=format_bytes(m.get("cold_start_read_bytes")), limit=_duration(COLD_START_S), **parts)
    return Row("cold_start", PASS if total <= COLD_START_S else WARN, evidence, total, COLD_START_S, "s",
               lower_is_better=True)


def data_io_row(data: DataRead | None, root: str, tuned: Mapping[str, Any] | None) -> Row:
    """The user's data read from where it lives (`tui.ready.data_read`), against the bytes a second the fine-tune
    measured here consumes (its tokens/s at ``BYTES_PER_TOKEN``): slower than that, the card would wait on it."""
    if data is None:
        return not_measured("data_io", words("why.no_data"))
    rate = data.bytes_per_s
    if rate is None:
        return Row("data_io", FAIL, words("data_io.nothing", root=quoted(root), unreadable=data.unreadable))
    tokens = _number(tuned or {}, "tokens_per_s")
    need = tokens * BYTES_PER_TOKEN if tokens else None
    more = message("ready.data_io.cap", cap=format_number(READ_S)) if not data.complete else ""
    said = dict(rate=f"{format_bytes(rate)}/s", files=format_number(data.files), root=quoted(root),
                bytes=format_bytes(data.bytes), seconds=format_number(data.seconds, 3), more=more)
    evidence = (words("data_io.evidence", need=f"{format_bytes(need)}/s", tokens=format_number(tokens),
                      bpt=BYTES_PER_TOKEN, **said) if need else words("data_io.no_need", **said))
    if data.unreadable:
        unread = words("data_io.unreadable", n=data.unreadable)
        evidence = {lang: joined((evidence[lang], unread[lang]), lang) for lang in LANGS}
    verdict = WARN if data.unreadable or (need and rate < need) else PASS if need else NA_VERDICT
    return Row("data_io", verdict, evidence, rate, need, "B/s")


def rows_of(results: Mapping[str, Mapping[str, Any]], why: Mapping[str, dict[str, str]], dtype: str,
            data: DataRead | None = None, root: str = "") -> list[Row]:
    """Every question's row, in QUESTIONS' order, from the results by the question they answer (`tui.ready.runs.Gave`)
    or, for a question no step answered, why; ``data``: the read of --data ``root``, None without it."""
    def of(question: str, judge: Any) -> Row:
        if question in results:
            return judge(results[question])
        return not_measured(question, dict(why.get(question) or words("why.no_figure", key=quoted(question))))

    timed = {k: results[k] for k in ("decode", "finetune") if k in results}   # the runs a CPU fallback shows in
    return [of("fit", fit_row), of("ops", lambda scan: ops_row(scan, dtype, timed)), of("loss", loss_row),
            of("prefill", prefill_row), of("decode", decode_row), of("finetune", finetune_row),
            of("cold_start", cold_start_row), data_io_row(data, root, results.get("finetune"))]
