"""`--lang zh`: the microbenchmark table's words are the catalogue's, said in Chinese: what each figure is and how it
was measured, the part's name true to the device (the CPU's memory is the host's)."""

import pytest

from app_fakes import fake_sample
from report_runs import T0
from test_report import _screenshot, _unzip, quick_env  # noqa: F401 - quick_env: the fake nvidia-smi, collect_env
from tui.i18n import CATALOGUE
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol
from workloads.facts import rated
from workloads.microbench import figures
from zh_words import english_words

H100 = rated.lookup("NVIDIA H100 80GB HBM3")
# names the table keeps as they are: a dtype, a collective's op, the link's name, a unit of integer throughput
NAMES = {"int8", "tf32", "TF32", "all_reduce", "broadcast", "PCIe", "TOPS"}


def _gemm(dtype, best, stop, skipped=None):
    return {"dtype": dtype, "unit": "TOPS" if dtype == "int8" else "TFLOP/s", "skipped": skipped, "sizes": [],
            "stop": stop, "best_n": None if skipped else 512, "best": best, "median": None if skipped else best * 0.9}


def _cpu_parts():
    """The parts of a CPU run as the child writes them (its sentences: the catalogue's English)."""
    from workloads.catalogue import say

    memory = {"buffer_bytes": 128 * 2**20, "probe_read_gbps": 17.8, "read_vs_probe": 0.95,
              "kinds": {k: {"best_gbps": 16.8, "median_gbps": 16.7} for k in figures.MEMORY_WORDS}}
    return {"gemm": [_gemm("fp32", 0.0169, say("workload.microbench.stop.largest", max_size=512)),
                     _gemm("int8", 0.0336, say("workload.microbench.stop.flat", n=512, patience=2, rise="1.03")),
                     _gemm("tf32", None, "", skipped=say("workload.microbench.skip.tf32_not_cuda"))],
            "memory": memory,
            "launch": {"calls": 1000, "eager_host_us": 2.46, "notes": say("workload.microbench.launch.cpu_note")},
            "burn": {"status": "PASS", "iterations": 21, "seconds": 1.05, "n": 256, "dtype": "fp32",
                     "mismatched_iterations": 0, "mismatched_elements": 0, "tflops": 0.000672}}


def _gpu_parts():
    points = [{"bytes": 2**28, "mode": m, "direction": d, "best_gbps": 25.0, "median_gbps": 24.0}
              for m in ("pinned", "pageable") for d in ("h2d", "d2h")]
    link = {"source": "NVML", "generation": 4, "width": 16, "max_generation": 5, "max_width": 16,
            "gbps_per_direction": 31.5}
    collectives = [{"op": op, "bytes": 2**24, "ranks": 2, "time_us": 99.0, "algbw_gbps": 2.0, "busbw_gbps": 2.0,
                    "correct": op == "all_reduce"} for op in ("all_reduce", "broadcast")]
    launch = {"calls": 1000, "roundtrips": 50, "eager_host_us": 4.1, "eager_device_us": 2.2,
              "device_clock": "CUDA events", "roundtrip_us": 9.5, "graph_kernels": 100, "graph_host_us": 0.05,
              "graph_device_us": 1.1}
    burn = {"status": "FAIL", "iterations": 40, "mismatched_iterations": 1, "mismatched_elements": 3,
            "dtype": "bf16", "n": 8192, "seconds": 60.0, "tflops": 700.0}
    return {"transfer": {"points": points, "link": link}, "collectives": {"points": collectives},
            "launch": launch, "burn": burn}


def _run(store, parts, ratings, device):
    rows = []
    for name, raw in parts.items():
        rows += {"gemm": lambda: figures.gemm_rows(raw, ratings),
                 "memory": lambda: figures.memory_rows(raw, ratings),
                 "transfer": lambda: figures.transfer_rows(raw["points"], raw["link"], None),
                 "launch": lambda: figures.launch_rows(raw), "burn": lambda: figures.burn_rows(raw),
                 "collectives": lambda: figures.collective_rows(raw["points"])}[name]()
    metrics = {"figures": rows, "parts": parts, **figures.flat(rows), "device_name": device}
    if ratings is None:
        metrics["rated_note"] = CATALOGUE["workload.microbench.rated_note.cpu"][0]
    run = store.create("microbench", [])
    run.append(protocol.Start(t=T0, workload="microbench", device=device, config={}))
    run.append(protocol.Result(t=T0 + 2, metrics=metrics))
    run.append(protocol.End(t=T0 + 3, status="ok", exit_code=0))
    run.close()
    return run.path


def _tables(md):
    """Each microbenchmark table's rows, as lists of cells."""
    found, rows = [], None
    for line in md.splitlines():
        if line.startswith("#### "):
            rows = [] if line == "#### 微基准测试与设备标称值对比" else None
            if rows is not None:
                found.append(rows)
        elif rows is not None and line.startswith("| ") and not line.startswith("| ---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return [t[1:] for t in found]  # less the heading row


@pytest.fixture
def zh_md(tmp_path):
    store = RunStore(tmp_path / "runs")
    runs = [_run(store, _cpu_parts(), None, "cpu (x86_64, 2 threads)"),
            _run(store, _gpu_parts(), H100, "NVIDIA H100 80GB HBM3")]
    path = export_bundle(ExportInputs(runs, tmp_path / "out", screenshot_svg=_screenshot(), doctor_checks=[],
                                      lang="zh", sample=fake_sample(0)))
    return (_unzip(path, tmp_path / "zh") / "report.md").read_text()


def test_the_microbench_table_says_what_it_measured_in_chinese(zh_md):
    cpu, gpu = _tables(zh_md)
    for row in cpu + gpu:
        part, figure, measured, _rated, _share, source, note = row
        assert english_words(" ".join((part, figure, measured, source, note))) <= NAMES, row
    # the tool's own sentences are said, not kept: a sweep's end, a skip's reason, the CPU's launch note
    assert cpu[0][1:3] == ["fp32 矩阵乘，各尺寸中最佳（边长 512）", "0.0169 TFLOP/s"]
    assert cpu[0][6] == "边长 512 时中位数 0.0152；已达到要求的最大尺寸（512）"
    assert "在 512 处不再上升（连续 2 个尺寸低于此前最佳值的 1.03 倍）" in cpu[1][6]
    assert cpu[2][6] == "已跳过：TF32 是 CUDA 张量核心的模式；此设备在 PyTorch 中没有这个开关"
    assert [r[2] for r in cpu if r[0] == "内核启动"] == ["2.46 微秒", "N/A"]
    assert cpu[-1][2] == "通过" and cpu[-1][6] == "1.1 秒内 21 次迭代，0.000672 TFLOP/s"
    assert [r[6] for r in gpu if r[0] == "集合通信"] == ["算法带宽 2 GB/s，99 微秒；结果正确",
                                                     "算法带宽 2 GB/s，99 微秒；结果错误"]
    assert "PCIe 第 4 代 16 通道（NVML），单向 31.5 GB/s；设备最高支持第 5 代 16 通道" in [r[2] for r in gpu]
    assert any(r[2].startswith("失败（40 次迭代中 1 次不一致") for r in gpu)
    assert [r[1:3] for r in gpu][:2] == [["主机到设备，锁页，最佳", "25 GB/s"], ["设备到主机，锁页，最佳", "25 GB/s"]]


def test_the_cpu_s_memory_is_the_host_s_not_device_memory(zh_md):
    cpu, _gpu = _tables(zh_md)
    parts = {row[0] for row in cpu}
    assert "内存带宽" in parts and "显存带宽" not in parts
    assert cpu[4][6] == "128 MiB 缓冲区；中位数 16.7；负载自带的探测在同样大小上读到 17.8 GB/s（本项为其 95 %）"
