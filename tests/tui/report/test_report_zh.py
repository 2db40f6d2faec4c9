"""`--lang zh`: the report is Chinese except what it quotes, and report.html renders the report's markdown."""

import html
import re

import pytest

from app_fakes import fake_sample
from report_runs import generate_run, resnet_run
from test_report import _screenshot, _unzip, quick_env  # noqa: F401 - quick_env: the fake nvidia-smi, collect_env
from tui.doctor.check import STATUSES, TITLES
from tui.i18n import CATALOGUE, say
from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.report import html as report_html
from tui.report.document import Bullets, Para, Table, code
from tui.report.i18n import Words, note, quoted
from tui.report.smi import SmiOutput
from tui.store import RunStore
from workloads import protocol, registry
from workloads.dataio import verdict as dataio_verdict
from workloads.hints import RULES, hint_for
from workloads.spec import Text
from catalogue_words import english_leaks
from zh_words import english_words

# the doctor as it writes its checks: an id, and its own Chinese where it has it (the last one has none)
DOCTOR = [
    {"id": "torch.imports", "name": "torch imports", "status": "PASS", "evidence": "torch 2.14.1", "hint": "",
     "zh": {"name": "torch 可以导入", "evidence": "torch 2.14.1"}},
    {"id": "device.init", "name": "CUDA initialisation time", "status": "WARN",
     "evidence": "24.1 s to the first tensor on the device (torch import 2.1 s; bound 20 s)",
     "hint": "enable persistence mode", "value": 24.1, "unit": "s",
     "zh": {"evidence": "首个张量上设备用时 24.1 s（导入 torch 2.1 s；上限 20 s）", "hint": "开启持久模式"}},
    {"id": "device.autocast.fp16", "name": "fp16 autocast runs on the device", "status": "FAIL",
     "evidence": "no kernel image is available for execution on the device", "hint": say(f"hint.{RULES[0][1]}")},
    {"id": "disk.free", "name": "free disk space", "status": "SKIP", "evidence": "not measured", "hint": ""},
]


def _runs(tmp_path):
    store = RunStore(tmp_path / "runs")
    failed = store.create("resnet50", ["--steps", "4"])
    failed.append(protocol.Start(t=1.0, workload="resnet50", device="cpu (x86_64, 2 threads)"))
    failed.append(protocol.Error(t=2.0, message="RuntimeError: CUDA out of memory <script>**x**</script>",
                                 hint=hint_for("CUDA out of memory")))
    failed.append(protocol.End(t=3.0, status="failed", exit_code=1))
    failed.close()
    return [resnet_run(store), generate_run(store, bound_exceeded=True), failed.path]


def _notes():
    gpt2 = registry.spec_for("generate").title
    return [note("note_suite_cpu", suite="quick"), note("note_not_run", name=gpt2),
            note("note_workload", name=gpt2, note=Text("no accelerator, so one timed run", "没有加速卡，因此只计时一次")),
            note("note_suite_stopped", error=quoted("RunStoreError: disk full"))]


@pytest.fixture
def zh_bundle(tmp_path):
    # two cards listed, one run on the CPU: the CPU trap's headline is the first thing the report says
    path = export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                      doctor_checks=DOCTOR,
                                      notes=_notes(), lang="zh", price_per_hour=2.5, currency="USD",
                                      sample=fake_sample(0, devices=2)))
    return _unzip(path, tmp_path / "zh")


def test_a_report_in_chinese_has_no_english_of_cardbench_s_own(zh_bundle):
    md = (zh_bundle / "report.md").read_text()
    assert english_words(md) == set()
    # no sentence of the catalogue in English, even quoted: each was said in Chinese. A workload's warning is quoted
    # as it wrote it after its meaning ('原文 `...`'): generate's bound_exceeded message shares words with
    # report.bw_unreliable, and is the workload's text, not a catalogue sentence
    assert english_leaks(re.sub(r"原文 `[^`]*`", "", md)) == []
    headline = md.split("\n\n")[1]
    assert headline.startswith("**警告：ResNet-50 训练在 CPU 上运行，而不是在所列的 2 张加速卡")
    assert "建议：此 PyTorch 与驱动不匹配" in headline  # the hint in Chinese, not quoted English
    # the doctor's own Chinese reaches the table (envinfo.normalize_checks keeps a check's zh)
    assert "| 警告 | CUDA 初始化时间 | 首个张量上设备用时 24.1 s（导入 torch 2.1 s；上限 20 s） | 开启持久模式 |" in md
    assert "CUDA 初始化 | 24.1 秒（首个张量上设备用时 24.1 s" in md
    # what it translated is there, in Chinese
    for said in ("跳过", "失败", "成功", "CPU（`x86_64`，2 线程）", "混合精度/算子回退", "测试套件：`quick`",
                 "GPT-2 token 生成未运行", "没有加速卡，因此只计时一次", "设备内存不足：减小 `--batch-size`",
                 "每步损失曲线", "上限不可靠", "操作系统", "CUDA 初始化"):
        assert said in md, said
    # what it quotes is there as it was written, in code spans
    for kept in ("`RuntimeError: CUDA out of memory <script>**x**</script>`", "`CUDA error: device kernel image is "
                 "invalid`", "`RunStoreError: disk full`", "`Fake GPU 80GB`"):
        assert kept in md, kept


def test_the_english_report_is_unchanged_by_the_translation(tmp_path):
    path = export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                      doctor_checks=DOCTOR,
                                      notes=_notes(), lang="en"))
    md = (_unzip(path, tmp_path / "en") / "report.md").read_text()
    assert "| FAIL | fp16 autocast runs on the device | no kernel image is available" in md
    assert "Suite: quick, run headless" in md and "GPT-2 token generation did not run" in md
    assert "the suite stopped early: RunStoreError: disk full" in md  # quoted only in Chinese
    assert "status **failed**, on cpu (x86_64, 2 threads)" in md
    assert not re.search(r"[\u4e00-\u9fff]", md)


def test_report_html_renders_the_markdown_and_escapes_everything_else(zh_bundle):
    page = (zh_bundle / "report.html").read_text()
    text = re.sub(r"<pre>.*?</pre>", "", page, flags=re.DOTALL)  # tool output, verbatim in <pre>
    outside_code = re.sub(r"<code>.*?</code>", "", text, flags=re.DOTALL)
    assert "**" not in outside_code and "`" not in outside_code
    assert "状态 <strong>失败</strong>" in page
    # a tool's text is shown as written: escaped, its asterisks not bold
    assert "<code>RuntimeError: CUDA out of memory &lt;script&gt;**x**&lt;/script&gt;</code>" in page
    assert "<script>" not in page
    assert '<td class="FAIL">失败</td>' in page and '<td class="PASS">通过</td>' in page
    # a chart's words are drawn in English: its Chinese title is shown under it
    assert re.search(r'<img src="charts/[^"]+-loss.png" alt="每步损失曲线"><figcaption>每步损失曲线</figcaption>', page)


@pytest.mark.parametrize("text", ["plain", "a`b", "``x``", "`lead", "trail`", "a ``` b", "<b>&amp;</b> **x**"])
def test_a_code_span_holds_any_text_and_html_shows_it_back(text):
    page = report_html.render([Para(f"before {code(text)} after")], "t")
    assert f"<p>before <code>{html.escape(text)}</code> after</p>" in page


def test_inline_markdown_in_html():
    page = report_html.render([Para("status **ok**, see [the doc](https://example.org/a?b=1&c=2)"),
                               Bullets(["[bad](javascript:alert) and **unclosed", r"a \* b"]),
                               Table(["h"], [["`x|y`"], ["WARN"]])], "t")
    assert "status <strong>ok</strong>" in page
    assert '<a href="https://example.org/a?b=1&amp;c=2">the doc</a>' in page
    assert "<li>[bad](javascript:alert) and **unclosed</li>" in page and "<li>a * b</li>" in page
    assert "<td><code>x|y</code></td>" in page and '<td class="WARN">WARN</td>' in page


def test_a_doctor_check_in_chinese_uses_its_own_words_then_a_title_then_quotes():
    w = Words("zh")
    own, no_zh, legacy = DOCTOR[1], DOCTOR[2], {"name": "free disk space", "evidence": "12 GiB free", "hint": "x y"}
    assert w.check(own, "evidence") == own["zh"]["evidence"] and w.check(own, "hint") == "开启持久模式"
    assert w.check(own, "name") == "CUDA 初始化时间"               # no Chinese name of its own: the title by id
    assert w.check(no_zh, "evidence") == "`no kernel image is available for execution on the device`"
    assert w.check(no_zh, "hint") == say(f"hint.{RULES[0][1]}", "zh")  # a hint of workloads.hints: translated
    assert w.check(legacy, "name") == "磁盘剩余空间"                # a row from before ids: by its English name
    assert w.check(legacy, "hint") == "`x y`"
    assert Words("en").check(own, "evidence") == own["evidence"]


def test_every_word_another_module_writes_has_its_chinese():
    assert {f"check.{cid}" for cid in TITLES} <= set(CATALOGUE), "a doctor check without a Chinese title"
    assert {f"hint.{advice}" for _pattern, advice in RULES} <= set(CATALOGUE), "a hint without its Chinese"
    assert {f"status.{s}" for s in protocol.END_STATUSES} <= set(CATALOGUE)
    # the verdict words: the doctor's statuses, and data IO's verdict kinds, said as the doctor's are
    kinds = (dataio_verdict.COMPUTE, dataio_verdict.DATA, dataio_verdict.STORAGE, dataio_verdict.NO_CARD,
             dataio_verdict.NO_FIGURE)
    assert {k for k in CATALOGUE if k.startswith("verdict.")} == {f"verdict.{s}" for s in (*STATUSES, *kinds)}


def test_a_note_is_said_in_the_language_of_the_report():
    said = note("note_suite_stopped", error=quoted("OSError: [Errno 28] No space left"))
    assert str(said) == "the suite stopped early: OSError: [Errno 28] No space left"
    assert said.en == str(said) and said.id == "report.note_suite_stopped"  # the English a log prints; its id
    assert said("zh") == "测试套件提前停止：`OSError: [Errno 28] No space left`"
    assert note("note_not_run", name=registry.spec_for("resnet50").title)("zh").startswith("ResNet-50 训练未运行")
    with pytest.raises(KeyError):
        note("no such sentence")


def test_why_no_management_cli_answered_in_chinese_quotes_each_tool_s_answer():
    out = SmiOutput(tool=None, command="cardbench devices", text="",
                    tried=("`nvidia-smi`: timed out after 20 s", "`ixsmi`: no output"),
                    failures=(("nvidia-smi", "timed out after 20 s"), ("ixsmi", None)))
    assert out.why_in("zh") == "`nvidia-smi`：`timed out after 20 s`；`ixsmi`：无输出"
    assert out.why == "; ".join(out.tried)   # the English says what run_management_cli kept, from the same answers
    assert SmiOutput(tool=None, command="x", text="", tried=out.tried).why_in("zh") == \
        "`` `nvidia-smi`: timed out after 20 s ``；`` `ixsmi`: no output ``"   # an older record's English, quoted
    assert english_words(SmiOutput(tool=None, command="x", text="").why_in("zh")) == set()


@pytest.mark.parametrize("devices", [0, 2])
def test_a_cpu_run_s_telemetry_sentence_names_listed_cards_only_where_there_are_some(tmp_path, devices):
    store = RunStore(tmp_path / "runs")
    run = store.create("resnet50", ["--device", "cpu"])
    run.append(protocol.Start(t=1.0, workload="resnet50", device="cpu (x86_64, 2 threads)"))
    run.append_telemetry({"t": 1.5, "devices": [], "host": {"cpu_pct": 90.0}, "errors": [], "sources": []})
    run.append(protocol.End(t=3.0, status="ok"))
    run.close()
    for lang, listed, none in (("en", "the listed cards' readings are not their data",
                                "No accelerator telemetry was recorded"),
                               ("zh", "所列加速卡的读数不属于这些运行", "没有记录到加速卡遥测")):
        path = export_bundle(ExportInputs([run.path], tmp_path / f"out-{lang}-{devices}", screenshot_svg=_screenshot(),
                                          doctor_checks=[], sample=fake_sample(0, devices=devices), lang=lang))
        md = (_unzip(path, tmp_path / f"{lang}-{devices}") / "report.md").read_text()
        assert (listed in md, none in md) == ((True, False) if devices else (False, True))


def test_without_a_font_the_chinese_report_quotes_why_and_points_at_the_svg(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDBENCH_FONT", "none")
    png.monospace_font.cache_clear()
    try:
        path = export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                          doctor_checks=DOCTOR,
                                          lang="zh"))
    finally:
        png.monospace_font.cache_clear()
    md = (_unzip(path, tmp_path / "zh") / "report.md").read_text()
    assert re.search(r"无法生成 PNG（`[^`]*no monospace font[^`]*`）；文本文件完整。（见 `screenshot.svg`）", md)

