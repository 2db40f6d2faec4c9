"""What a bundle or a run says is checked once, in the loader (tui.compare.shape): a figure compare computes with
that no card could report refuses the input in one line; other numbers past any measurement read as missing;
text reaches the terminal, compare.md and compare.json without control characters, short and on one line; a
soak's negative drift is a figure like any other (issue 21, 3-4)."""
import json
import unicodedata

import pytest

from compare_runs import bundle, one_line_exit_2, resnet_like, result_only
from tui.store import RunStore

FAST = [1000.0, 980.0, 1020.0, 1000.0, 990.0, 1010.0]
PUBLISHED = "A100-80GB, AMP (NVIDIA DeepLearningExamples)"


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


@pytest.mark.parametrize("extra, options, said", [
    # an int of 400 digits is no float: its ratio, difference or share raised OverflowError
    ({"val_top1": 10 ** 400}, (), "val_top1 = 1000000000"),
    ({"images_per_s_compute": 10 ** 400}, (), "images_per_s_compute = 1000000000"),
    ({"achieved_tflops": 10 ** 400, "published_images_per_s": {PUBLISHED: 2470.0}}, ("--against", "A100 80GB"),
     "achieved_tflops = 1000000000"),
    # the baseline's figure so small that a ratio to it is infinite: the verdict's round() raised OverflowError
    ({"images_per_s": 5e-324}, ("--price", "A=1", "--price", "B=1"), "images_per_s = 5e-324"),
    # absurd, not fatal: compare printed a ratio of 4e+302 to a published figure of 1e-300, and a 1e+310 pts gap
    ({"published_images_per_s": {PUBLISHED: 1e-300}}, ("--against", "A100 80GB"), "= 1e-300"),
    ({"val_top1": 1e308}, (), "val_top1 = 1e+308"),
])
def test_a_figure_no_card_reports_refuses_the_input_in_one_line(compare, store, extra, options, said):
    odd, good = resnet_like(store, FAST, extra=extra), resnet_like(store, FAST, extra={"val_top1": 0.7})
    code, out, err = compare(odd, good, *options)
    one_line_exit_2(code, out, err, said)
    assert str(odd) in err and "outside" in err


def test_a_number_compare_does_not_compute_with_reads_as_missing_when_no_run_could_measure_it(compare, store):
    """A result's epoch of 10^400 images made the cost per epoch raise OverflowError; missing, the start config's
    epoch (12,800 images) is the one priced, as for a run that never said."""
    odd = resnet_like(store, FAST, extra={"epoch_size": 10 ** 400})
    code, out, err = compare(odd, resnet_like(store, FAST), "--price", "A=2", "--price", "B=3", "--json")
    assert code == 0, err
    (w,) = json.loads(out)["workloads"]
    assert w["prices"]["A"]["run_epoch_images"] == w["prices"]["B"]["run_epoch_images"] == 12800


def test_a_soak_s_negative_drift_is_compared_not_refused(compare, store):
    """A soak's headline is its worst drift in %, below 0 when the card slowed: it was refused as 'outside any
    card's range'."""
    a = result_only(store, "soak", {"drift_worst_pct": -3.5, "verdict": "PASS"})
    b = result_only(store, "soak", {"drift_worst_pct": -1.25, "verdict": "PASS"})
    code, out, err = compare(a, b, "--json")
    assert code == 0, err
    (w,) = json.loads(out)["workloads"]
    assert w["headline"]["values"] == {"A": -3.5, "B": -1.25}
    assert w["headline"]["ratios"] == {"A": None, "B": None}   # no ratio to a drift of 0 or below


def _controls(text):
    return [c for c in text if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t"]


HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J\x9b31m\u202e"
# a carriage return, a line separator and a newline each start a line of their own in compare.md
BREAKS = "\r| forged | row |\u2028## Forged heading\n# Another"


def test_text_from_a_run_stays_on_one_line_short_and_free_of_controls(compare, store, tmp_path):
    device = "GPU" + HOSTILE + BREAKS + "x" * 100_000
    workload = "my-job" + BREAKS + HOSTILE
    odd = result_only(store, workload, {"note": "n" + HOSTILE}, device=device)
    good = result_only(store, workload, {})
    out_dir = tmp_path / "out"
    code, out, err = compare(odd, good, "-o", out_dir)
    assert code == 0, err
    md = (out_dir / "compare.md").read_text(encoding="utf-8")
    assert md == out and len(out) < 10_000 and not _controls(out + err)
    assert not [line for line in out.splitlines() if line.startswith(("| forged", "## Forged", "# Another"))]
    row = next(line for line in out.splitlines() if line.startswith("| A |") and "GPU" in line)
    assert "\\| forged \\| row \\|" in row and "## Forged heading # Another" in row   # the host's | escaped
    assert "…" in row   # cut short, and says so

    code, out, err = compare(odd, good, "--json")
    assert code == 0, err

    def strings(value):
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in (k, *strings(v))]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) else []

    said = strings(json.loads(out))   # json.dumps wrote ESC as \u001b, which a reader of compare.json decodes
    assert said and not [s for s in said if _controls(s) or "\n" in s] and max(map(len, said)) < 1000


def test_the_currency_option_is_checked_as_a_bundle_s_currency_is(compare, store):
    a, b = resnet_like(store, FAST), resnet_like(store, FAST)
    code, out, err = compare(a, b, "--price", "A=2", "--price", "B=3", "--currency", "C" * 100_000)
    one_line_exit_2(code, out, err, "--currency: currency 'CCCCCCCCCCCCCCCCCCCC'... is not a currency")


@pytest.fixture
def run(store):
    return resnet_like(store, FAST)


@pytest.mark.parametrize("summary, said", [
    ({"runs": [5]}, 'metrics/summary.json "runs" item 1 is not an object with a "run_id"'),
    ({"runs": [{"run_id": 7}]}, 'metrics/summary.json "runs" item 1 is not an object with a "run_id"'),
    ({"runs": [{"run_id": "r"}] * 2}, 'metrics/summary.json "runs" lists run r twice'),
    ({"runs": [{"run_id": f"r{i}"} for i in range(1001)]}, 'metrics/summary.json "runs" lists 1,001 runs; '
                                                           "compare reads at most 1,000"),
    ({"runs": "RUN", "host": 5}, 'metrics/summary.json "host" is not text'),
    ({"runs": "RUN", "cost": "cheap"}, 'metrics/summary.json "cost" is not an object'),
])
def test_a_summary_json_out_of_shape_is_named(compare, run, tmp_path, summary, said):
    if summary.get("runs") == "RUN":
        summary["runs"] = [{"run_id": run.name}]
    odd = bundle(tmp_path / "odd.zip", run, summary=summary)
    one_line_exit_2(*compare(run, odd), said)


@pytest.mark.parametrize("run_id", ["run one (copy)", "../../escaped", "/abs/olute"])
def test_a_run_id_is_a_member_name_never_a_path(compare, run, tmp_path, monkeypatch, run_id):
    """A run id that is no plain directory name was skipped ('holds no run to compare'); it names the bundle's
    members and nothing on disk, so it is compared, and nothing is written where it points."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    sent = bundle(tmp_path / "sent.zip", run, run_id=run_id)
    code, out, err = compare(run, sent, "--json")
    assert code == 0, err
    assert json.loads(out)["sides"][1]["runs"] == {"resnet50": run_id.strip()}
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "a" / "escaped").exists()
