"""A data-IO run in the report (its table and figures in English and Chinese), in compare, in the standard suite
and in `cardbench doctor --data`."""

from __future__ import annotations

import json
import zipfile

from recorded_env import recorded_doctor_and_env  # noqa: F401 - a fixture
from tui import cli
from tui.cli.doctor import render
from tui.doctor.run import data_checks
from tui.headless.plan import suite_jobs, suite_names
from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol
from workloads.dataio import table

T0 = 1_790_000_000.0
SWEEP = [{"workers": 0, "pin_memory": True, "images_per_s": 201.0, "cores_busy": 1.0, "h2d_gb_s": 11.5},
         {"workers": 1, "pin_memory": True, "images_per_s": 183.0, "cores_busy": 1.2, "h2d_gb_s": 11.0},
         {"workers": 2, "pin_memory": True, "images_per_s": 402.0, "cores_busy": 2.1, "h2d_gb_s": 12.1}]
# the verdict's figures (workloads/dataio/words.py says its sentence from them)
VERDICT = {"verdict": "compute-bound", "image_size": 224, "loader_images_per_s": 402.0, "loader_workers": 2,
           "consumer_images_per_s": 180.0, "consumer_basis": "compute-only", "consumer_run": "20261206-resnet50-ab",
           "consumer_image_size": 224}
LINE = ("at 224 px the loader gives 402 images/s with 2 worker(s); the card trains at 180 images/s (ResNet-50 run "
        "20261206-resnet50-ab at 224 px: its compute-only images/s): compute-bound, the loader keeps up; use 2 or more "
        "worker(s)")
OLD_LINE = ("the loader gives 402 images/s with 2 worker(s); the card trains at 180: compute-bound, the loader keeps "
            "up; use >= 2 worker(s)")


def _run(store: RunStore, rate: float = 402.0, cold: float = 8000.0):
    run = store.create("dataio", ["--make-data", "64"])
    run.append(protocol.Start(t=T0, workload="dataio", device="cuda:0 (Fake GPU)", config={"total_steps": 5}))
    run.append(protocol.Result(t=T0 + 9, metrics={
        **VERDICT, "loader_images_per_s": rate, "loader": SWEEP,
        "cold_files_s": cold, "warm_files_s": 30049.0, "warm_seq_mb_s": 3417.0, "pil_per_core": 830.0,
        "free_bytes": 80 * 10**9, "data_where": "tmpfs on tmpfs (in memory) at /dev/shm"}))
    run.append(protocol.End(t=T0 + 10, status="ok", exit_code=0))
    run.close()
    return run.path


def _cells(rows, lang):
    return [[c(lang) if callable(c) else c for c in row] for row in rows]


def test_the_sweep_table_and_its_heading_in_both_languages():
    heading, columns, rows = table.report_table({"loader": SWEEP, **VERDICT})
    assert heading("en") == "DataLoader sweep over num_workers (ResNet-50's training transforms); " + LINE
    assert heading("zh") == ("DataLoader 按 `num_workers` 扫描（ResNet-50 训练变换）；224 px 下 DataLoader 用 2 个工作进程给出 "
                             "402 images/s；加速卡训练速率 180 images/s（ResNet-50 运行 `20261206-resnet50-ab`，224 px："
                             "其纯计算 images/s）：计算受限，数据加载跟得上；请用 2 个或更多工作进程")
    assert [c("en") for c in columns] == ["workers", "images/s", "CPU cores busy", "host -> device GB/s"]
    assert [c("zh") for c in columns][:3] == ["工作进程数", "图像/秒", "占用 CPU 核数"]
    assert _cells(rows, "en")[2] == ["2 (pinned)", "402", "2.1", "12.10"]
    assert _cells(rows, "zh")[2] == ["2（锁页内存）", "402", "2.1", "12.10"]
    failed = table.report_table({"loader": [{"workers": 4, "images_per_s": None, "error": "RuntimeError: killed"}]})
    assert _cells(failed[2], "en") == [["4", "failed: RuntimeError: killed", "N/A", "N/A"]]
    assert _cells(failed[2], "zh") == [["4", "失败：RuntimeError: killed", "N/A", "N/A"]]
    # a run from before the verdict's figures: its English sentence as written
    assert table.report_table({"loader": SWEEP, "verdict": "compute-bound", "verdict_line": OLD_LINE})[0]("zh") \
        .endswith("；" + OLD_LINE)


def test_the_terminal_and_run_log_lines_are_the_sweep_the_card_s_rate_and_the_verdict_in_words():
    from workloads.dataio.table import terminal_lines

    lines = terminal_lines({"loader": SWEEP, **VERDICT})
    assert lines[0] == "dataio: loader sweep"
    assert lines[1].split() == ["workers", "images/s", "CPU", "cores", "busy", "host", "->", "device", "GB/s"]
    assert lines[4].split() == ["2", "(pinned)", "402", "2.1", "12.10"]
    assert lines[5] == ("dataio: the card's rate: the card trains at 180 images/s (ResNet-50 run 20261206-resnet50-ab "
                        "at 224 px: its compute-only images/s)")
    assert lines[6] == "dataio: verdict: " + LINE
    assert not any("items" in line or "events.jsonl" in line for line in lines)


def test_the_report_in_chinese_shows_the_sweep_and_the_figures_in_its_words(tmp_path, recorded_doctor_and_env):
    """One export (a bundle takes seconds): the spec's metrics and table reach report.md in the report's language.
    The doctor and collect_env are recorded ones (tests/recorded_env.py): their torch children are not what it checks."""
    out = export_bundle(ExportInputs([_run(RunStore(tmp_path / "runs"))], tmp_path / "out",
                                     screenshot_svg=png.terminal_svg("cardbench", "cardbench"), lang="zh"))
    with zipfile.ZipFile(out) as zf:
        md = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("report.md"))
    for line in ("DataLoader 按 `num_workers` 扫描（ResNet-50 训练变换）；224 px 下 DataLoader 用 2 个工作进程",
                 "请用 2 个或更多工作进程", "| 工作进程数 | 图像/秒 | 占用 CPU 核数 |",
                 "| 2（锁页内存） | 402 | 2.1 | 12.10 |", "files/s 小文件读取（冷缓存）", "| 结论 | 计算受限 |"):
        assert line in md, line
    for english in ("the loader gives", "the card trains", "(pinned)", "worker(s)", "compute-bound"):   # the tool's own
        assert english not in md, english


def test_compare_reads_the_loader_and_the_storage_figures(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMAND_MODULES, "compare", "tui.cli.compare")
    store = RunStore(tmp_path / "runs")
    a, b = _run(store, 402.0, 8000.0), _run(store, 201.0, 2000.0)
    code = cli.main(["compare", str(a), str(b), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (w,) = json.loads(out)["workloads"]
    assert w["workload"] == "dataio" and w["headline"]["values"] == {"A": 402.0, "B": 201.0}
    compared = {m["metric"]: m["values"] for m in w["metrics"]}
    assert compared["cold_files_s"] == {"A": 8000.0, "B": 2000.0}   # the storage read on both sides
    assert compared["warm_seq_mb_s"] == {"A": 3417.0, "B": 3417.0}


def test_the_standard_suite_runs_it_on_made_data_and_the_quick_one_does_not():
    assert "dataio" in suite_names(None, "standard") and "dataio" not in suite_names(None, "quick")
    jobs, notes = suite_jobs("standard", ["dataio"], accelerator=False, device=None)
    assert jobs[0].args[:2] == ["--make-data", "64"] and "--data" not in jobs[0].args
    assert any(str(n).startswith("dataio: no accelerator: 64 made JPEGs") for n in notes)


def test_doctor_data_is_one_check_with_its_words_in_both_languages(tmp_path):
    (tmp_path / "a.jpg").write_bytes(b"\xff\xd8\xff" + bytes(500))
    (check,) = data_checks(str(tmp_path))
    assert check.id == "data.dir" and check.status == "PASS" and check.unit == "files/s" and check.said("name", "zh") == "数据目录"
    (missing,) = data_checks(str(tmp_path / "gone"))
    assert missing.status == "FAIL" and "data directory" in render([missing]) and "does not exist" in missing.evidence
    args = cli.build_parser().parse_args(["doctor", "--data", str(tmp_path)])
    assert args.data == str(tmp_path)
