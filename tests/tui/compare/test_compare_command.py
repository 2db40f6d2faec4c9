"""`cardbench compare` on hand-made runs: ratios, verdicts, prices, refusals and bad input, through tui.cli.main."""
import json
import math
import statistics
import zipfile

import pytest

from compare_runs import resnet_like
from tui.store import RunStore

FAST = [1000.0, 980.0, 1020.0, 1000.0, 990.0, 1010.0]
SLOW = [r * 0.78 for r in FAST]


def row(markdown, start):
    """The first line of the workload's table (after the inputs table) that starts with ``start``."""
    section = markdown.split("## ResNet-50 training", 1)[1]
    return next(line for line in section.splitlines() if line.startswith(start))


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


def test_ratio_uncertainty_and_the_price_verdict_match_a_hand_computation(compare, store):
    a, b = resnet_like(store, FAST), resnet_like(store, SLOW)
    code, out, err = compare(a, b, "--price", "A=11", "--price", "B=6.5", "--currency", "CNY", "--json")
    assert code == 0, err
    data = json.loads(out)
    (w,) = data["workloads"]
    ratio = w["headline"]["ratios"]["B"]
    # by hand: medians 1000 and 780; each side's spread is stdev/mean of its steps after the warm-up
    spread = statistics.stdev(FAST) / statistics.fmean(FAST)  # the same relative spread on both sides
    assert ratio["ratio"] == pytest.approx(0.78)
    assert ratio["uncertainty"] == pytest.approx(0.78 * math.sqrt(2 * spread ** 2))
    assert ratio["verdict"] == "slower"
    # 78 % of the throughput at 6.5/11 = 59.09 % of the price: 0.78 / 0.5909 = 1.32x per yuan, each with the
    # ratio's ± (0.0228 here: 2 %, and 0.0228 / 0.5909 = 0.04 on the factor)
    pm = ratio["uncertainty"]
    assert w["verdicts"]["B"] == (f"B reaches 78 ± {round(pm * 100)} % of A's ResNet-50 throughput at 59 % of its "
                                  f"price: 1.32 ± {pm / (6.5 / 11):.2f}x the performance per yuan")
    assert w["prices"]["B"]["per_currency_unit"] == pytest.approx(780 * 3600 / 6.5)
    assert w["prices"]["A"]["cost_per_imagenet_epoch"] == pytest.approx(1_281_167 / 1000 * 11 / 3600)


def test_markdown_names_the_figure_the_ratio_and_which_was_faster(compare, store):
    a, b = resnet_like(store, FAST), resnet_like(store, SLOW)
    code, out, _ = compare(a, b, "--baseline", "B")
    assert code == 0
    assert "Baseline **B**" in out and "images/s (median after warm-up)" in out
    row_a = row(out, "| A |")
    assert "| 1,000 |" in row_a and "1.28 ±" in row_a and "| faster |" in row_a
    assert "price" not in out.split("## ResNet-50")[1]  # no price given, no price columns or verdict


def test_unlike_runs_are_refused_with_the_settings_named_unless_allowed(compare, store):
    a = resnet_like(store, FAST, image_size=64, batch_size=8, extra={"channels_last": False})
    b = resnet_like(store, FAST, image_size=224, batch_size=16, extra={"channels_last": True})
    code, out, err = compare(a, b)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "image size 64 (A) vs 224 (B)" in err and "batch size 8 (A) vs 16 (B)" in err
    assert "--allow-different" in err and "channels" not in err  # a free setting is no reason to refuse

    code, out, err = compare(a, b, "--allow-different")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("| side | image size"))
    assert "| batch size |" in header and "| channels-last |" in header and "| precision |" not in header
    assert "compared with unlike settings (--allow-different): image size 64 (A) vs 224 (B)" in out


def test_accuracy_difference_stands_beside_the_speed_ratio(compare, store):
    a = resnet_like(store, FAST, extra={"val_top1": 0.761, "val_top5": 0.93})
    b = resnet_like(store, SLOW, extra={"val_top1": 0.755, "val_top5": 0.931})
    code, out, err = compare(a, b)
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("| side |") and "ratio to A" in line)
    assert "top-1 accuracy (validation)" in header and header.index("ratio to A") < header.index("top-1")
    row_b = row(out, "| B |")
    assert "| 75.5 % | -0.6 pts |" in row_b and "| 93.1 % | +0.1 pts |" in row_b


def test_fail_below_exits_1_naming_the_side(compare, store):
    a, b = resnet_like(store, FAST), resnet_like(store, SLOW)
    assert compare(a, b, "--fail-below", "0.7")[0] == 0
    code, out, err = compare(a, b, "--fail-below", "0.9")
    assert code == 1 and "below --fail-below 0.9: resnet50: B at 0.78 of A" in err and out  # the table is printed


def test_against_published_figures_reads_them_with_their_source(compare, store):
    published = {"published_images_per_s": {"A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0,
                                            "V100-16GB, AMP (NVIDIA DeepLearningExamples)": 1200.0}}
    a = resnet_like(store, FAST, extra=published)
    code, out, err = compare(a, "--against", "A100 80GB", "--json")
    assert code == 0, err
    data = json.loads(out)
    ratio = data["workloads"][0]["headline"]["ratios"]["A"]
    assert data["baseline"] == "A100 80GB" and ratio["ratio"] == pytest.approx(1000 / 2470)
    assert any("A100-80GB, AMP (NVIDIA DeepLearningExamples) = 2,470 images/s" in n for n in data["notes"])

    code, _, err = compare(a, "--against", "H800")
    assert code == 2 and "matches no published figure" in err and "V100-16GB" in err
    fp32 = resnet_like(store, FAST, amp="off", extra=published)
    code, _, err = compare(fp32, "--against", "A100 80GB")
    assert code == 2 and "precision fp32 (A) vs AMP (A100 80GB)" in err


def test_against_puts_the_rated_figure_beside_the_achieved_one_with_its_source(compare, store, monkeypatch):
    from tui.compare import published
    from workloads.facts.rated import RatedPeak

    a100 = RatedPeak("NVIDIA A100 80GB", "bf16_tflops", 312.0, "https://example.com/a100.pdf", "2026-12-01")
    monkeypatch.setattr(published, "rated_figure", lambda query, precision: a100 if precision == "bf16" else None)
    a = resnet_like(store, FAST, extra={"achieved_tflops": 23.4, "published_images_per_s": {
        "A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0}})
    code, out, err = compare(a, "--against", "A100 80GB")
    assert code == 0, err
    # 23.4 / 312 = 7.5 %
    assert ("A achieved 23.4 TFLOP/s in bf16: 7.5 % of NVIDIA A100 80GB's rated 312 TFLOP/s "
            "(https://example.com/a100.pdf, 2026-12-01)") in out


def test_written_files_and_chinese(compare, store, tmp_path):
    a, b = resnet_like(store, FAST), resnet_like(store, SLOW)
    out_dir = tmp_path / "cmp"
    code, out, err = compare(a, b, "--lang", "zh", "--price", "A=11", "--price", "B=6.5", "--currency", "CNY",
                             "-o", out_dir)
    assert code == 0, err
    written = {p.name for p in out_dir.iterdir()}
    assert {"compare.md", "compare.html", "compare.json"} <= written
    assert "compare.png" in written or "compare.png was not drawn" in out
    assert "B 的 ResNet-50 吞吐量是 A 的 78 ± 2 %，价格是其 59 %：每元性能为 1.32 ± 0.03 倍" in out
    assert (out_dir / "compare.md").read_text(encoding="utf-8") == out
    assert "<table>" in (out_dir / "compare.html").read_text(encoding="utf-8")


def test_chinese_has_no_english_of_cardbench_s_own(compare, store):
    from zh_words import english_words

    a = resnet_like(store, FAST, image_size=64, extra={"val_top1": 0.76, "channels_last": False})
    b = resnet_like(store, SLOW, extra={"val_top1": 0.75, "channels_last": True})
    code, out, err = compare(a, b, "--allow-different", "--lang", "zh", "--price", "A=11", "--price", "B=6.5",
                             "--currency", "CNY")
    assert code == 0, err
    assert "`resnet50`：设置不同，按 `--allow-different` 仍作比较：图像尺寸 64（A） 对 224（B）" in out
    # the sides' labels are the reader's names for the inputs; top-1 and channels-last are kept as terms
    assert english_words(out) - {"A", "B", "top-1", "channels-last"} == set()
    # ... and no sentence of the catalogue in English, quoted or not: the Chinese path took each Chinese string
    from catalogue_words import english_leaks

    assert english_leaks(out) == []


@pytest.mark.parametrize("make, argv, said", [
    (None, ["MISSING", "A"], "MISSING does not exist"),
    ("text", ["TEXT", "A"], "TEXT is neither a report bundle (.zip) nor a run directory"),
    ("zip", ["ZIP", "A"], "ZIP is not a cardbench report bundle (no metrics/summary.json)"),
    ("dir", ["DIR", "A"], "DIR is not a cardbench run directory (no events.jsonl)"),
    (None, ["A", "A", "--baseline", "C"], "--baseline 'C' is none of the inputs"),
    (None, ["A", "A", "--price", "A=free"], "--price 'A=free' is not SIDE=PRICE"),
    (None, ["A"], "give two inputs or more"),
])
def test_bad_input_is_one_line_and_exit_2(compare, store, tmp_path, make, argv, said):
    paths = {"A": resnet_like(store, FAST), "MISSING": tmp_path / "nowhere.zip", "TEXT": tmp_path / "notes.txt",
             "ZIP": tmp_path / "other.zip", "DIR": tmp_path / "empty"}
    paths["TEXT"].write_text("not a bundle")
    with zipfile.ZipFile(paths["ZIP"], "w") as zf:
        zf.writestr("readme.txt", "hello")
    paths["DIR"].mkdir()
    code, out, err = compare(*[paths.get(a, a) for a in argv])
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    for key, path in paths.items():
        said = said.replace(key, str(path)) if key in ("MISSING", "TEXT", "ZIP", "DIR") else said
    assert said in err


def test_the_command_module_imports_light():
    import subprocess
    import sys

    code = ("import sys, tui.cli.compare; "
            "print(sorted(m for m in ('torch', 'textual', 'tui.compare.comparison') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_each_workload_is_compared_on_its_own_and_one_only_a_side_ran_is_said(store):
    from report_runs import generate_run
    from tui.compare.comparison import compare as build
    from tui.compare.load import load_side

    a, b = load_side(str(resnet_like(store, FAST)), "A"), load_side(str(resnet_like(store, SLOW)), "B")
    a.runs.update(load_side(str(generate_run(store)), "A").runs)  # A is a bundle of both workloads
    comparison = build([a, b])
    assert [w.workload for w in comparison.workloads] == ["resnet50"]
    assert "generate: only A ran it; not compared" in comparison.note_lines()
    assert build([b, a]).note_lines() == ["generate: A ran it and the baseline B did not; not compared"]


def test_the_verdict_carries_the_tables_uncertainty_and_says_when_speeds_are_the_same(compare, store):
    """The table said "1.02 ± 0.12, same within ±" while the bold line claimed B reached 102 %: the sentence now
    says the same as the table."""
    noisy = [1000.0, 800.0, 1200.0, 1000.0, 850.0, 1150.0]
    a, b = resnet_like(store, noisy), resnet_like(store, [r * 1.02 for r in noisy])
    code, out, err = compare(a, b, "--price", "A=11", "--price", "B=6.5", "--currency", "CNY")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("- **B reaches"))
    assert "B reaches 102 ± " in line and "x the performance per yuan" in line
    assert "the throughputs are the same within the noise, so the difference is the price" in line
    assert "same within ±" in out
