"""Which run directories the workbench's export takes (`tui.workbench.view.export_runs`): UI-free, no app needed."""

from __future__ import annotations

from pathlib import Path

from tui.workbench.view.export_runs import report_run_dirs, workload_of
from tui.store import RunStore


def _run(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir(parents=True)
    (path / "events.jsonl").write_text("", encoding="utf-8")
    return path


def test_the_newest_run_of_each_workload_on_disk_when_none_is_open_or_loaded(tmp_path):
    old = _run(tmp_path, "20260101-100000-resnet50-aaaa")
    gen = _run(tmp_path, "20260101-110000-generate-bbbb")
    new = _run(tmp_path, "20260101-120000-resnet50-cccc")
    plugin = _run(tmp_path, "20260101-130000-my-plugin-dddd")  # a name with a hyphen
    assert workload_of(old) == "resnet50" and workload_of(plugin) == "my-plugin"
    store = RunStore(tmp_path)
    assert sorted(report_run_dirs(store, [], [])) == sorted([new, gen, plugin])
    # this session's runs first, else the runs loaded on the screen
    assert report_run_dirs(store, [old], [gen]) == [old]
    assert report_run_dirs(store, [], [gen, old]) == [gen, old]
    assert report_run_dirs(RunStore(tmp_path / "none"), [], []) == []
