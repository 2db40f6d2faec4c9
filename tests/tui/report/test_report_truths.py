"""What a first-time reader reads must be true (issue 36): no healthy result listed as a problem (item 3), and the
cost table prices the headline it stands beside, never a run that measured nothing (item 5)."""

from __future__ import annotations

from report_runs import T0
from test_report import _screenshot, _unzip
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol


def _run(store, workload, metrics, steps=()):
    run = store.create(workload, [])
    run.append(protocol.Start(t=T0, workload=workload, device="cuda:0 (NVIDIA H100 80GB HBM3)"))
    for i, rate in enumerate(steps, 1):
        run.append(protocol.Step(t=T0 + i, step=i, throughput=rate, unit="tokens/s"))
    run.append(protocol.Result(t=T0 + 60, metrics=metrics))
    run.append(protocol.End(t=T0 + 61, status="ok", exit_code=0))
    run.close()
    return run.path


def _report(tmp_path, runs, lang="en", price=3.6):
    bundle = export_bundle(ExportInputs(runs, tmp_path / f"out-{lang}", screenshot_svg=_screenshot(), lang=lang,
                                        price_per_hour=price, currency="CNY"))
    return (_unzip(bundle, tmp_path / lang) / "report.md").read_text()


def _section(md: str, heading: str) -> str:
    return md.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_a_healthy_verdict_is_not_a_problem_and_a_failing_one_is(tmp_path):
    store = RunStore(tmp_path / "runs")
    fine = _run(store, "dataio", {"verdict": "compute-bound", "loader_images_per_s": 900.0})
    bound = _run(store, "dataio", {"verdict": "data-bound", "loader_images_per_s": 90.0})
    problems = _section(_report(tmp_path, [fine]), "Problems met and how they were handled")
    assert "verdict" not in problems and "None: no fallback" in problems
    problems = _section(_report(tmp_path, [fine, bound], lang="zh"), "遇到的问题及处理")
    # the verdict said in the report's language (data IO's catalogue: verdict.data-bound)
    assert problems.count("数据受限") == 1 and "计算受限" not in problems and "data-bound" not in problems


def test_the_cost_prices_the_headline_beside_it_and_nothing_unmeasured(tmp_path):
    store = RunStore(tmp_path / "runs")
    # the tiny LLM's headline is tg (239 tokens/s); the cost row read another rate (144.3) beside it
    llm = _run(store, "llm", {"tg_tokens_per_s": 239.0, "decode_tokens_per_s": 144.3, "model_size": "tiny"},
               steps=(140.0, 150.0))
    fit_only = _run(store, "llm", {"model_size": "Qwen2.5-7B", "fit": [{"batch": 1}]})
    loader = _run(store, "dataio", {"verdict": "compute-bound", "loader_images_per_s": 900.0})
    cost = _section(_report(tmp_path, [llm, fit_only, loader]), "Cost")
    rows = [r for r in cost.splitlines() if r.startswith("| LLM")]
    priced = [r for r in rows if "per million tokens" in r]
    assert len(priced) == 1 and "| 239 tokens/s |" in priced[0], rows
    assert "144.3" not in cost
    # 1e6 tokens / 239 tokens/s = 4,184 s at 3.6 CNY/h (0.001 CNY/s) = 4.184 CNY
    assert any("per million tokens" in r and "4.18" in r for r in rows), rows
    assert len([r for r in rows if "this run" in r]) == 1          # the fit-only run has no row at all
    assert "ImageNet" not in cost                                  # a loader's rate is no training rate
