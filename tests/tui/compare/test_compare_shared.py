"""compare treats a ratio where a run shared its host or card as noise, not a verdict (issue 36 item 2): two runs of
the same settings on the same machine, one beside another job, were called "0.12x" of each other."""
import pytest
import json

from report_runs import resnet_run
from tui.store import RunStore
from tui.telemetry.sharing import Sharing


@pytest.fixture(autouse=True)
def _threshold_of_a_quiet_host(monkeypatch):
    """These tests judge sharing: the threshold a real host has, not the one the suite sets for every other test."""
    monkeypatch.delenv("CARDBENCH_SHARED_CORES", raising=False)



def _shared(run_dir, other: float = 1.8):
    with open(run_dir / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(Sharing(other_cpu_cores=other, load1=6.0, cpu_count=2).warning().to_json() + "\n")
    return run_dir


def test_a_ratio_beside_another_job_is_noise_and_the_note_says_why(compare, tmp_path):
    store = RunStore(tmp_path / "runs")
    quiet, busy = resnet_run(store), _shared(resnet_run(store))
    code, out, err = compare(quiet, busy, "--json")
    assert code == 0, err
    data = json.loads(out)
    ratio = data["workloads"][0]["headline"]["ratios"]["B"]
    assert ratio["verdict"] == "noise"
    assert data["workloads"][0]["verdicts"]["B"] is None
    (note,) = [n for n in data["notes"] if "shared its host or card" in n]
    assert "B's run" in note and "1.8 CPU cores on average" in note and "noise, not verdicts" in note


def test_runs_that_had_the_host_to_themselves_keep_their_verdict(compare, tmp_path):
    store = RunStore(tmp_path / "runs")
    code, out, err = compare(resnet_run(store), resnet_run(store), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["workloads"][0]["headline"]["ratios"]["B"]["verdict"] == "same"
    assert not [n for n in data["notes"] if "shared" in n]


def test_compare_md_says_noise_in_the_verdict_column(compare, tmp_path):
    store = RunStore(tmp_path / "runs")
    out_dir = tmp_path / "out"
    code, out, err = compare(_shared(resnet_run(store)), resnet_run(store), "-o", out_dir)
    assert code == 0, err
    md = next(out_dir.rglob("compare.md")).read_text(encoding="utf-8")
    assert "noise: a run shared its host or card" in md
