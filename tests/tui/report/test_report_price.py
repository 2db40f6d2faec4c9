"""The report's cost section says where its price came from, in money's own precision, and the host's peaks say
they are the whole host's (issue 22.9)."""
import re
import zipfile

from recorded_env import text_screen  # noqa: F401 - a fixture
from report_runs import generate_run, resnet_run
from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.report.contents import amount
from tui.store import RunStore


def _report(tmp_path, **options) -> str:
    store = RunStore(tmp_path / "runs")
    runs = [resnet_run(store), generate_run(store)]
    path = export_bundle(ExportInputs(runs, tmp_path / "out", screenshot_svg=png.terminal_svg("cardbench", "cardbench"),
                                      doctor_checks=[], **options))
    with zipfile.ZipFile(path) as zf:
        return zf.read(next(n for n in zf.namelist() if n.endswith("/report.md"))).decode()


def test_a_trial_s_kept_price_is_credited_to_the_trial_not_to_an_option_never_given(tmp_path):
    md = _report(tmp_path, price_per_hour=6.5, currency="CNY", price_from="trial")
    assert "At 6.5 CNY per hour (the trial's price, kept by `cardbench trial`)" in md
    assert "given with `--price-per-hour`" not in md
    md = _report(tmp_path / "given", price_per_hour=6.5, currency="CNY", price_from="option")
    assert "At 6.5 CNY per hour (given with `--price-per-hour`)" in md


def test_costs_are_money_with_two_decimals_and_tiny_ones_keep_their_digits(tmp_path):
    assert (amount(1309.90213), amount(0.5), amount(0.000412345), amount(0.0)) == ("1,309.90", "0.50", "0.000412",
                                                                                    "0.00")
    md = _report(tmp_path, price_per_hour=6.5, currency="CNY", price_from="option")
    cost = md.split("## Cost", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"\d\.\d{2} CNY", cost) and not re.search(r"\.\d{4} CNY", cost), cost


def test_host_peaks_say_they_are_the_whole_host_s(tmp_path):
    """"Host peaks: ... memory 23.5 GiB" read as the workload's; it is every process's on the machine."""
    run = resnet_run(RunStore(tmp_path / "runs"), with_device=False)
    path = export_bundle(ExportInputs([run], tmp_path / "out", screenshot_svg=png.terminal_svg("x", "x"),
                                      doctor_checks=[]))
    with zipfile.ZipFile(path) as zf:
        md = zf.read(next(n for n in zf.namelist() if n.endswith("/report.md"))).decode()
    stability = md.split("## Stability", 1)[1].split("\n## ", 1)[0]
    assert "The whole host, all processes, at its peak: CPU" in stability and "memory in use" in stability
    assert "Host peaks" not in stability
    # the peak beside the memory the host had
    assert re.search(r"memory in use [\d.]+ [KMGT]iB of [\d.]+ [KMGT]iB\.", stability), stability


def test_the_gpt2_row_defines_its_headline_once(tmp_path):
    """Its row said "the headline is all tokens over all time" beside a label that says "median after warm-up"
    (issue 22.10): one definition, the one measure.py computes."""
    store = RunStore(tmp_path / "runs")
    run = store.create("generate", ["--tokens", "64", "--repeat", "3", "--warmup", "8"])
    from workloads import protocol

    run.append(protocol.Start(t=1.0, workload="generate", device="Fake GPU 80GB",
                              config={"dtype": "bf16", "batch_size": 1, "tokens": 64, "warmup": 8}))
    for i in range(1, 5):
        run.append(protocol.Step(t=1.0 + i, step=16 * i, throughput=120.0 + i, unit="tokens/s", step_s=0.008))
    run.append(protocol.Result(t=9.0, metrics={"tokens_per_s": 121.5, "repeat": 3, "tokens": 64, "batch_size": 1}))
    run.append(protocol.End(t=10.0, status="ok", exit_code=0))
    run.close()
    path = export_bundle(ExportInputs([run.path], tmp_path / "out", screenshot_svg=png.terminal_svg("x", "x"),
                                      doctor_checks=[]))
    with zipfile.ZipFile(path) as zf:
        md = zf.read(next(n for n in zf.namelist() if n.endswith("/report.md"))).decode()
    row = next(line for line in md.splitlines() if line.startswith("| GPT-2 token generation |"))
    assert "all tokens over all time" not in row
    assert "the median of 3 timed run(s) after 8 untimed warm-up tokens" in row
    assert "prefill is in the time to first token" in row


def test_every_result_figure_is_labelled_with_its_unit_not_dumped(tmp_path):
    """The "All result metrics" block was `key = value` lines: `ttft_s = 0.204310668999`, `x = None` (issue 22.11)."""
    md = _report(tmp_path, price_per_hour=None)
    sections = [part.split("\n#", 1)[0] for part in md.split("#### All result metrics")[1:]]
    assert sections
    for section in sections:
        assert " = " not in section and "None" not in section
        assert not re.search(r"\d\.\d{6,}", section), section   # no float printed with all its digits
        assert section.lstrip().startswith("| metric | value |")


def test_export_takes_several_runs_after_one_run_option(tmp_path, capsys, text_screen):
    """The README's `cardbench export --run DIR...` failed: the option had to be repeated (issue 22.12)."""
    from tui import cli

    store = RunStore(tmp_path / "runs")
    a, b = resnet_run(store), generate_run(store)
    assert cli.main(["export", "--run", str(a), str(b), "-o", str(tmp_path / "out")]) == 0
    (path,) = (tmp_path / "out").glob("*.zip")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    assert any(a.name in n for n in names) and any(b.name in n for n in names)


def test_the_chinese_cost_table_gives_a_run_s_length_in_chinese_units(tmp_path):
    md = _report(tmp_path, price_per_hour=6.5, currency="CNY", price_from="option", lang="zh")
    cost = md.split("## 成本", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in cost.splitlines() if line.startswith("|") and "CNY" in line]
    assert rows and any(re.search(r"\d \u79d2", row) for row in rows), cost   # '… 秒', not '… s'
    assert not any(re.search(r"\d s \|", row) for row in rows), cost
