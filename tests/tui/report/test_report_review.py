"""What a reviewer found reading a CPU machine's bundle (llm, soak): one definition per figure, units on the figures,
no English of cardbench's own in the Chinese report."""

from report_runs import T0
from test_report import _screenshot, _unzip
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol

KIND = "process peak RSS (VmHWM, reset before each cell) less the RSS before the model was built"
# an llm run's result on the CPU, as `cardbench run llm --model tiny --device cpu` gave it (trimmed)
LLM = {"model_size": "tiny", "sweep": "off", "decode": "eager", "peak_memory_kind": KIND, "tg_tokens_per_s": 162.7,
       "tg128_tokens_per_s": 162.7, "decode_tokens_per_s": 91.27, "peak_memory_bytes": 98877440,
       "decode_bytes_per_step": 62672896, "bandwidth_method": "sum of a 256 MiB fp32 tensor, best of 10",
       "compiled": False, "dtype": "fp32"}


def _bundle(tmp_path, lang):
    store = RunStore(tmp_path / "runs")
    llm = store.create("llm", ["--model", "tiny", "--device", "cpu"])
    llm.append(protocol.Start(t=T0, workload="llm", device="cpu (x86_64, 2 threads)"))
    # its one step is the cell's decode rate (1 / TPOT p50), not the headline (llama-bench's tg)
    llm.append(protocol.Step(t=T0 + 1, step=1, throughput=91.27, unit="tokens/s", memory_allocated_bytes=98877440))
    llm.append(protocol.Result(t=T0 + 2, metrics=LLM))
    llm.append(protocol.End(t=T0 + 3, status="ok", exit_code=0))
    llm.close()
    soak = store.create("soak", ["--hours", "0.01"])
    soak.append(protocol.Start(t=T0, workload="soak", device="cpu (x86_64, 2 threads)"))
    soak.append(protocol.Result(t=T0 + 30, metrics={"verdict": "WARN", "drift_worst_pct": None}))
    soak.append(protocol.End(t=T0 + 31, status="ok", exit_code=0))
    soak.close()
    bundle = export_bundle(ExportInputs([llm.path, soak.path], tmp_path / "out", screenshot_svg=_screenshot(),
                                        lang=lang))
    return (_unzip(bundle, tmp_path / lang) / "report.md").read_text().splitlines()


def _row(lines, start):
    return next(line for line in lines if line.startswith(start))


def test_one_peak_memory_row_says_what_was_measured_and_the_headline_is_not_read_against_another_figure(tmp_path):
    lines = _bundle(tmp_path, "en")
    # the steps' median (91.27) is not the headline (162.7): "median of 1 steps 91.27" beside it defined it twice
    assert "median of" not in _row(lines, "| LLM readiness").split("|")[4]
    memory = [line for line in lines if "peak" in line and "memory" in line and line.startswith("| ")
              and "MiB" in line]
    assert memory == [f"| peak process memory (RSS, no device) | 94 MiB ({KIND}) |"]   # the RSS's growth: said
    # a byte count in bytes' units, not 62,672,896, under the label llm's record gives it
    assert "| data read a decode step (weights + KV cache at the mean context) | 60 MiB |" in lines
    assert "| compiled | no |" in lines


def test_the_chinese_report_says_its_own_words_and_quotes_the_workloads(tmp_path):
    lines = _bundle(tmp_path, "zh")
    assert "| 警告（N/A） |" in _row(lines, "| 长时间稳定性测试")      # the verdict in the doctor's words
    assert "| 结论（规则见 verdict.txt） | 警告 |" in lines
    # a WARN verdict is a problem met: the list says so (it said "无：没有回退、警告或错误。")
    assert any(line.startswith("- 长时间稳定性测试") and "结论为 **警告**" in line for line in lines)
    assert "| `compiled` | 否 |" in lines and "| 实测读带宽的测量方法 | `sum of a 256 MiB fp32 tensor, best of 10` |" \
        in lines
    assert "| 模型 | `tiny` |" in lines          # a text figure the workload wrote: quoted, as the report's rule says
    assert not any("峰值显存" in line or "| no |" in line for line in lines)
