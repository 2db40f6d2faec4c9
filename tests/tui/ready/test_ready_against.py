"""`--against`: the reference's readiness found in a bundle (.zip, or unzipped) or a run directory, each figure's
ratio, and the price-performance row that says the seed's "75-80 % of the reference at 55-60 % of the price"."""

from __future__ import annotations

import json
import zipfile

import pytest

import ready_results as given
from tui.ready.against import AgainstError, against_rows, load, refuse_other
from tui.ready.rows import NA_VERDICT, PASS, WARN


def _here(decode: float, finetune: float, price=5.8, currency="USD"):
    """This card: prefill and decode at ``decode`` of the reference's rate, fine-tune at ``finetune`` of it."""
    perf = given.perf()
    perf["prefill_tokens_per_s"] *= decode
    perf["decode_tokens_per_s"] *= decode
    tuned = given.finetune()
    tuned["tokens_per_s"] *= finetune
    return given.readiness(price=price, currency=currency, perf=perf, finetune=tuned, device="this card")


def test_the_seeds_sentence_is_one_row():
    reference = given.readiness(price=10.0)
    rows = {r.question: r for r in against_rows(_here(0.75, 0.80), reference)}
    assert rows["decode"].ratio == pytest.approx(0.75) and rows["finetune"].ratio == pytest.approx(0.80)
    price = rows["price"]
    said = price.said("en")
    assert said.startswith("75-80 % of the reference's speed (3 figures, geometric mean 77 %) at 58 % of its price")
    assert "1.32x the performance per dollar of NVIDIA H100 80GB HBM3" in said
    assert price.verdict == PASS and price.ratio == pytest.approx((0.75 * 0.75 * 0.8) ** (1 / 3) / 0.58)
    # slower for its price than the reference: a WARN
    assert {r.question: r for r in against_rows(_here(0.4, 0.4), reference)}["price"].verdict == WARN


def test_a_time_reads_lower_is_better_and_a_figure_one_side_lacks_or_that_is_the_models_own_is_left_out():
    reference = given.readiness(price=10.0)
    rows = {r.question: r for r in against_rows(_here(0.75, 0.8), reference)}
    assert set(rows) == {"prefill", "decode", "finetune", "cold_start", "price"}   # not the fit, ops or loss
    assert rows["cold_start"].said("en") == "41.5 s here, 41.5 s on the reference (lower is better)"
    assert rows["decode"].said("en") == "75 tokens/s here, 100 tokens/s on the reference (higher is better)"
    rows = {r.question: r for r in against_rows(_here(0.75, 0.8), given.readiness(price=10.0, cold_start=None))}
    assert "cold_start" not in rows


def test_without_both_prices_or_in_two_currencies_the_price_row_is_na_with_the_speed_kept():
    no_price = {r.question: r for r in against_rows(_here(0.75, 0.8), given.readiness(price=None))}["price"]
    assert no_price.verdict == NA_VERDICT and no_price.said("en").startswith("75-80 % of the reference's speed")
    two = {r.question: r for r in against_rows(_here(0.75, 0.8, currency="CNY"), given.readiness(price=10.0))}
    assert "prices in two currencies (CNY here, USD there)" in two["price"].said("en")


def _json(**kw) -> str:
    return json.dumps(given.readiness(**kw).to_json())


def test_the_reference_is_read_from_a_zip_an_unzipped_bundle_or_a_run_directory(tmp_path):
    bundle = tmp_path / "ref.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("cardbench-report-h100/report.md", "# report")
        zf.writestr("cardbench-report-h100/logs/20261206-llm-1/readiness.json", _json(price=10.0))
    assert load(bundle).price_per_hour == 10.0
    unzipped = tmp_path / "unzipped" / "cardbench-report-h100" / "logs" / "run-1"
    unzipped.mkdir(parents=True)
    (unzipped / "readiness.json").write_text(_json(model="Qwen3-8B"))
    assert load(tmp_path / "unzipped").model == "Qwen3-8B"
    assert load(unzipped).model == "Qwen3-8B"


@pytest.mark.parametrize("content, said", [
    (None, "holds no readiness.json"),
    ("{not json", "is not JSON"),
    (json.dumps({"kind": "something else"}), "is not a readiness made by `cardbench ready`"),
])
def test_a_reference_without_a_readable_readiness_is_refused_in_one_line(tmp_path, content, said):
    bundle = tmp_path / "ref.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("b/report.md", "# report")
        if content is not None:
            zf.writestr("b/logs/r/readiness.json", content)
    with pytest.raises(AgainstError, match=said):
        load(bundle)


def test_another_model_and_dtype_are_both_named(tmp_path):
    with pytest.raises(AgainstError) as refused:
        refuse_other(given.readiness(model="Qwen2.5-7B", dtype="fp16"), "Llama-3.1-8B", "bf16", tmp_path)
    assert "the model (Qwen2.5-7B there, Llama-3.1-8B here) and the dtype (fp16 there, bf16 here) differ" in \
        str(refused.value)
    refuse_other(given.readiness(dtype="fp16"), "Llama-3.1-8B", None, tmp_path)   # the dtype not known yet: later
