"""The typed result record: fields carry label and unit, the wire form is the flat metrics, nothing is lost."""

from __future__ import annotations

import ast

from dataclasses import dataclass
from typing import ClassVar

import pytest
from paths import REPO

from workloads import registry
from workloads.catalogue import CATALOGUE, Message, message
from workloads.result_record import (BYTES, FRACTION, SECONDS, STRICT_ENV, TEXT, Family, Figure, Record, UndeclaredFigure,
                              figure)


@dataclass
class _Toy(Record):
    HEADLINE: ClassVar[str] = "images_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("images_per_s", "total_s")
    FAMILIES: ClassVar[tuple[Family, ...]] = (Family(r"tg(?P<n>\d+)_tokens_per_s", "workload.llm.metric.tg_tokens_per_s",
                                                     "tokens/s"),)
    images_per_s: float | None = figure("workload.resnet50.metric.images_per_s", "images/s")
    total_s: float | None = figure("workload.shared.metric.total_s", SECONDS)
    peak: float | None = figure("workload.llm.metric.peak_memory_bytes", BYTES)
    share: float | None = figure("workload.shared.metric.decode_bandwidth_fraction", FRACTION)
    model: str | None = figure("workload.shared.metric.model_size", TEXT)


def test_a_figure_reads_its_kind_from_its_unit():
    kinds = {f.key: f.kind for f in _Toy.figures()}
    assert kinds == {"images_per_s": "rate", "total_s": "seconds", "peak": "bytes", "share": "fraction",
                     "model": "text"}
    assert _Toy.figure("images_per_s").unit == "images/s"
    assert Figure("x", Message("workload.shared.metric.total_s"), "TFLOP/s", as_kind="number").kind == "number"


def test_the_wire_form_keeps_what_was_given_in_its_order_and_none_as_a_value():
    record = _Toy.of({"total_s": 3.0, "images_per_s": 35.6, "model": None})
    assert record.to_metrics() == {"total_s": 3.0, "images_per_s": 35.6, "model": None}
    assert list(record.to_metrics()) == ["total_s", "images_per_s", "model"]
    assert "peak" not in record.to_metrics()   # not given: absent, not None


def test_a_family_declares_keys_made_at_run_time_with_their_label():
    record = _Toy.of({"tg128_tokens_per_s": 91.0})
    assert record.to_metrics() == {"tg128_tokens_per_s": 91.0}
    made = _Toy.figure("tg128_tokens_per_s")
    assert made.unit == "tokens/s" and made.label == message("workload.llm.metric.tg_tokens_per_s", n="128")
    assert _Toy.figure("tg_tokens_per_s") is None


def test_an_undeclared_figure_fails_under_the_tests_and_is_kept_in_a_real_run(monkeypatch):
    with pytest.raises(UndeclaredFigure, match="images_per_sec"):
        _Toy.of({"images_per_sec": 1.0})
    monkeypatch.delenv(STRICT_ENV)
    record = _Toy.of({"images_per_sec": 1.0, "total_s": 2.0})
    assert record.to_metrics() == {"images_per_sec": 1.0, "total_s": 2.0}
    assert record.undeclared() == ["images_per_sec"]


def test_a_class_variable_naming_no_figure_is_refused():
    @dataclass
    class _Bad(Record):
        HEADLINE: ClassVar[str] = "images_per_s"
        total_s: float | None = figure("workload.shared.metric.total_s", SECONDS)

    with pytest.raises(ValueError, match="images_per_s"):
        _Bad.checked()

    @dataclass
    class _Hiding(Record):
        figures: list | None = figure("workload.shared.metric.total_s", SECONDS)   # would hide Record.figures()

    with pytest.raises(ValueError, match="figures hides"):
        _Hiding.checked()


def test_a_family_may_say_its_rated_figures_are_no_measured_rate():
    rated = Family(r"gemm_(?P<dtype>fp16)_rated", "workload.microbench.metric.gemm_rated_tflops", "TFLOP/s", "number")
    assert rated.figure("gemm_fp16_rated").kind == "number"
    assert Family(r"x", "workload.shared.metric.total_s", "GB/s").figure("x").kind == "rate"


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda s: s.name)
def test_every_workload_declares_its_result_with_labels_the_catalogue_has(spec):
    record = spec.result
    assert record is not Record and record.HEADLINE, f"{spec.name}: no typed result"
    for f in record.figures():
        for said in (f.label, f.short):
            if isinstance(said, Message):
                assert said.id in CATALOGUE, f"{spec.name}.{f.key}: label {said.id} is not in the catalogue"
    assert spec.unit == (record.UNIT if record.UNIT is not None else record.figure(record.HEADLINE).unit)
    for printer in ("REPORT_TABLE", "READ_AGAINST"):   # named "module:function", imported when a report needs it
        assert getattr(record, printer) is None or callable(record.printer(printer)), (spec.name, printer)


def _untyped_results() -> list[str]:
    """Each `<emitter>.result(arg)` call under workloads/ whose argument is not a record (`<X>Result.of(...)` or
    `<X>Result(...)`): a plain dict would skip the record's declaration and its check."""
    found = []
    for path in sorted((REPO / "workloads").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "result" and len(node.args) == 1):
                continue
            arg = node.args[0]
            maker = arg.func if isinstance(arg, ast.Call) else None
            named = maker.value if isinstance(maker, ast.Attribute) and maker.attr == "of" else maker
            if not (isinstance(named, ast.Name) and named.id.endswith("Result")):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_every_workload_emits_its_typed_record_never_a_plain_dict():
    assert _untyped_results() == []
