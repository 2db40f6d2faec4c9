"""Every sentence of the report true and in the reader's language (issue 23, a reviewer's second read): llm's headline
read against its bound, '1 step' (not '1 steps'), durations in Chinese units, finetune's device-memory label."""

from report_runs import T0
from test_report import _screenshot, _unzip
from workloads.facts.formatting import format_duration, format_number
from tui.i18n.voice import Voice
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol, registry
from workloads.llm.against import read_against

# `cardbench run llm --model tiny --device cpu`'s result on this machine (trimmed): llama-bench tg128 and the cell
LLM = {"model_size": "tiny", "tg": 128, "tg_tokens_per_s": 162.745, "tg128_tokens_per_s": 162.745,
       "tg128_stddev": 9.3808, "tg128_runs": [162.87, 148.67, 160.1, 168.9, 173.18], "batch_size": 1,
       "decode_tokens_per_s": 91.267, "decode_bound_tokens_per_s": 553.29, "decode_bandwidth_fraction": 0.16495,
       "decode_bytes_per_step": 62672896, "device_read_gbps": 34.676}


def test_llm_s_headline_is_read_against_the_read_bandwidth_bound_it_shares():
    said = read_against(LLM | {"input_len": 128, "output_len": 128})   # a run from before the rows had bounds
    assert said.en == ("share of the measured read bandwidth, tg128: 29.4 % (its bound 553.3 tokens/s: 60 MiB read a "
                       "decode step at the measured read bandwidth 34.7 GB/s); mean of 5 tg128 runs at batch 1, stddev "
                       "9.381 tokens/s; share of the measured read bandwidth, cell 128 in x 128 out x batch 1: 16.5 % "
                       "(its decode, 1 / TPOT p50, 91.27 tokens/s)")    # 162.745 / 553.29 = 0.2941
    assert said.zh.startswith("占实测读带宽的比例，tg128：29.4 %（其上限 553.3 token/秒：每个解码步读 60 MiB") \
        and "tokens" not in said.zh
    # a run now: tg's share is its own row's, the figure llama-bench's table says for tg128, under the same name
    row = {"test": "tg128", "n_gen": 128, "avg_ts": 162.745, "achieved_gbps": 10.2, "read_fraction": 0.2942}
    now = read_against(LLM | {"bench": [row]}).en
    assert now.startswith("share of the measured read bandwidth, tg128: 29.4 % (its bound 553.2 tokens/s: 60 MiB read")
    from workloads.llm.bench_table import report_table as tg_table
    heading, columns, rows = tg_table({"bench": [row]})
    assert rows[0][[c.en for c in columns].index("of measured read bandwidth")] == "29.4 %"
    assert "measured read bandwidth" in heading.en
    # a sweep starting at batch 4: the bound is per sequence at batch 4, not tg's (batch 1): no share said
    assert read_against(LLM | {"batch_size": 4}).en == "mean of 5 tg128 runs at batch 1, stddev 9.381 tokens/s"
    from workloads.llm.table import cell
    assert cell(LLM, "decode_bandwidth_fraction") == "16.5 %"     # the cells' table said 16% beside the table's 16.5 %
    assert read_against({"model_size": "tiny"}) is None          # --fit-only: no tg, the cell reads N/A
    assert registry.spec_for("llm").read_against is read_against


def test_llm_s_spread_names_its_unit_in_every_place_and_an_older_run_still_reads(capsys):
    """`tg128_stddev` read as a bare 9.381 in "All result metrics" where run.log said tokens/s: the keys name their
    unit now; a run recorded before keeps its sentence."""
    from tui.figures import labelled
    from workloads.llm.result_record import LlmResult
    from workloads.llm.run import log_summary

    runs = LLM["tg128_runs"]
    now = {k: v for k, v in LLM.items() if k not in ("tg128_stddev", "tg128_runs")} | {
        "tg128_stddev_tokens_per_s": 9.3808, "tg128_runs_tokens_per_s": runs}
    assert read_against(now).en == read_against(LLM).en
    # the unit comes from llm's record (its families of llama-bench's figures), never from the key's spelling
    assert labelled(LlmResult.figure("tg128_stddev_tokens_per_s"), 9.3808) == \
        "9.381 tokens/s tg128: sample standard deviation of the repetitions"
    assert labelled(LlmResult.figure("tg128_runs_tokens_per_s"), runs[:2]) == "162.9, 148.7 tokens/s tg128: each repetition"
    log_summary(now | {"bandwidth_method": "sum of a 256 MiB fp32 tensor"})   # one line per test, none per spread
    assert capsys.readouterr().err.splitlines()[0] == "tg128: 162.7 +- 9.4 tokens/s (llama-bench's test, mean +- stddev)"


def test_generate_s_two_bandwidths_each_say_which_they_are(tmp_path):
    """The share of read bandwidth divides two GB/s figures, which the raw metrics listed as 'bandwidth gbps 25.2'
    beside 'device read gbps 37.18'."""
    store = RunStore(tmp_path / "runs")
    run = store.create("generate", [])
    run.append(protocol.Start(t=T0, workload="generate", device="cpu (x86_64, 2 threads)"))
    run.append(protocol.Result(t=T0 + 8, metrics={"tokens_per_s": 49.76, "bandwidth_gbps": 25.2,
                                                  "device_read_gbps": 37.18, "bandwidth_fraction": 0.678}))
    run.append(protocol.End(t=T0 + 9, status="ok", exit_code=0))
    run.close()
    md = (_unzip(export_bundle(ExportInputs([run.path], tmp_path / "out",
                                            screenshot_svg=_screenshot())), tmp_path / "b")
          / "report.md").read_text()
    assert "| GB/s read by decoding (bytes read a step × steps/s) | 25.2 |" in md
    assert "| GB/s device read bandwidth (measured: fastest sum of a tensor) | 37.18 |" in md
    assert "bandwidth_gbps" not in md and "device_read_gbps" not in md


def test_one_step_is_singular_and_durations_are_in_the_reader_s_units():
    assert Voice("en", "report.").counted("steps_fmt", 1) == "1 step"
    assert Voice("en", "report.").counted("steps_fmt", 3) == "3 steps"
    assert Voice("zh", "report.").counted("steps_fmt", 1) == "1 步"
    assert [format_duration(s, "zh") for s in (0.0082, 57.9, 131, 3720, 3 * 86400 + 4 * 3600)] == \
        ["8.2 毫秒", "57.9 秒", "2 分 11 秒", "1 小时 2 分", "3 天 4 小时"]
    assert format_duration(131) == "2 min 11 s" and Voice("zh").duration(131) == "2 分 11 秒"


def _bundle(tmp_path, lang):
    store = RunStore(tmp_path / "runs")
    run = store.create("resnet50", ["--steps", "1"])
    run.append(protocol.Start(t=T0, workload="resnet50", device="cuda:0 (NVIDIA H100 80GB HBM3)"))
    run.append(protocol.Step(t=T0 + 60, step=1, throughput=950.0, unit="images/s"))
    run.append(protocol.Result(t=T0 + 130, metrics={"images_per_s": 950.0, "total_s": 61.5}))
    run.append(protocol.End(t=T0 + 131, status="ok", exit_code=0))
    run.close()
    ft = store.create("finetune", ["--model", "tiny"])
    ft.append(protocol.Start(t=T0, workload="finetune", device="cuda:0 (NVIDIA H100 80GB HBM3)"))
    ft.append(protocol.Result(t=T0 + 5, metrics={"tokens_per_s": 1200.0, "peak_memory_bytes": 3 * 2**30}))
    ft.append(protocol.End(t=T0 + 6, status="ok", exit_code=0))
    ft.close()
    bundle = export_bundle(ExportInputs([run.path, ft.path], tmp_path / "out", screenshot_svg=_screenshot(), lang=lang))
    return (_unzip(bundle, tmp_path / lang) / "report.md").read_text()


def test_the_report_says_one_step_and_its_durations_in_each_language(tmp_path):
    en, zh = _bundle(tmp_path, "en"), _bundle(tmp_path, "zh")
    assert "1 step only: 950" in en and "1 steps" not in en and "of 1 step" not in en
    assert "2 min 11 s" in en and "| training time | 61.5 s |" in en
    assert "用时 2 分 11 秒" in zh and "| 训练时间 | 61.5 秒 |" in zh
    assert "2 min" not in zh and "仅 1 步：950" in zh
    assert "images/s (1 step, no warm-up step left out) |" in en and "（1 步，没有剔除预热步） |" in zh   # not '0 warm-up'
    # finetune's label is true on a device and on the CPU (run.log's line uses it on both); a bare 'peak memory' /
    # '峰值显存' (GPU memory) did not say which memory
    assert "| peak memory (on a device: allocated by torch; on the CPU: RSS) | 3.0 GiB |" in en
    assert "| 峰值内存（设备上：torch 已分配的显存；CPU 上：进程 RSS） | 3.0 GiB |" in zh


def test_finetune_s_flop_formula_ends_in_the_figure_the_metrics_table_prints():
    """The formula row read '7.737e+07 FLOPs/token' beside 'model_flops_per_token | 77,367,296 FLOP/token'."""
    from workloads.finetune import flops
    from workloads.models.llama.presets import PRESETS

    said = flops.per_token(PRESETS["tiny"], 512, "lora", 483328)
    figure = registry.spec_for("finetune").metric("model_flops_per_token")
    assert figure.unit == "FLOP/token"   # the table's figure is in the unit the formula ends in
    assert said.formula.endswith(f"= {format_number(said.per_token)} FLOP/token (PaLM appendix B; "
                                 "LoRA: weight gradients of the adapters only)")
    assert "e+" not in said.formula and "FLOPs/token" not in flops.per_token(PRESETS["tiny"], 512, "full").formula
