"""Each measured figure beside its rated one: measured / rated where published, N/A (never 0) where not."""

from __future__ import annotations

import pytest

from workloads.facts import rated
from workloads.microbench import figures
from workloads.microbench.spec import SPEC, planned_steps

H100 = rated.lookup("NVIDIA H100 80GB HBM3")


def gemm_result(dtype, best, n=8192, skipped=None):
    return {"dtype": dtype, "unit": "TOPS" if dtype == "int8" else "TFLOP/s", "skipped": skipped,
            "sizes": [], "stop": "stopped rising", "best_n": None if skipped else n, "best": best,
            "median": None if skipped else best * 0.95}


def test_gemm_figures_read_against_the_rated_dense_figure_of_their_dtype():
    rows = figures.gemm_rows([gemm_result("bf16", 791.6), gemm_result("fp32", 50.25)], H100)
    bf16, fp32 = rows
    assert bf16["rated"] == 989.5 and bf16["percent"] == pytest.approx(80.0, abs=0.01)
    assert fp32["rated"] == 67 and fp32["percent"] == pytest.approx(75.0)
    assert "resources.nvidia.com" in bf16["source"] and "2026-" in bf16["source"]


def test_on_the_cpu_nothing_is_rated_and_the_table_says_n_a_not_0():
    rows = figures.gemm_rows([gemm_result("fp32", 0.09)], None)
    rows += figures.memory_rows({"buffer_bytes": 256 * 2**20, "probe_read_gbps": 11.2, "read_vs_probe": 1.04,
                                 "kinds": {"copy": {"best_gbps": 11.4, "median_gbps": 10.5},
                                           "read": {"best_gbps": 11.7, "median_gbps": 9.6}}}, None)
    assert all(r["rated"] is None and r["percent"] is None for r in rows)
    heading, columns, table = SPEC.report_table({"figures": rows})
    assert [c("en") for c in columns[:6]] == ["part", "figure", "measured", "rated", "measured / rated",
                                              "rated figure's source"]
    assert heading("zh") == "微基准测试与设备标称值对比" and columns[4]("zh") == "实测 / 标称" and table[0][0]("zh") == "矩阵乘"
    assert [r[3] for r in table] == ["N/A"] * 3 and [r[4] for r in table] == ["N/A"] * 3
    assert table[0][2] == "0.09 TFLOP/s" and table[1][2] == "11.4 GB/s"
    assert "the workload's own probe read 11.2 GB/s on the same size (104 % of it)" in table[2][6]


def test_a_skipped_dtype_says_why():
    row, = figures.gemm_rows([gemm_result("tf32", None, skipped="TF32 is a CUDA tensor-core mode")], None)
    assert row["measured"] is None and row["note"] == "skipped: TF32 is a CUDA tensor-core mode"


def test_a_failed_burn_check_carries_its_counts():
    row, = figures.burn_rows({"status": "FAIL", "iterations": 40, "mismatched_iterations": 1,
                              "mismatched_elements": 3, "dtype": "fp32", "n": 256, "seconds": 1.0, "tflops": 0.01})
    assert row["measured"] == "FAIL (1 of 40 iterations, 3 elements differ)"


def test_pinned_transfers_are_read_against_the_link():
    points = [{"bytes": 2**28, "mode": m, "direction": d, "best_gbps": g, "median_gbps": g}
              for m, d, g in (("pinned", "h2d", 25.2), ("pinned", "d2h", 26.0), ("pageable", "h2d", 12.0),
                              ("pageable", "d2h", 9.0))]
    link = {"source": "NVML", "generation": 4, "width": 16, "max_generation": 4, "max_width": 16,
            "gbps_per_direction": 31.5, "max_gbps_per_direction": 31.5}
    rows = figures.transfer_rows(points, link, None)
    assert rows[0]["figure"] == "host -> device, pinned, best" and rows[0]["percent"] == pytest.approx(80.0)
    assert rows[-1]["measured"] == "PCIe gen 4 x16 (NVML), 31.5 GB/s per direction"


def test_collective_rows_give_each_op_s_busbw_at_its_largest_size():
    points = [{"op": "all_reduce", "bytes": b, "ranks": 2, "time_us": 10.0 * b / 2**20, "algbw_gbps": a,
               "busbw_gbps": a, "correct": True} for b, a in ((2**20, 0.5), (2**24, 1.5))]
    points.append({"op": "broadcast", "bytes": 2**24, "ranks": 2, "time_us": 99.0, "algbw_gbps": 2.0,
                   "busbw_gbps": 2.0, "correct": False})
    reduce_row, broadcast_row = figures.collective_rows(points)
    assert reduce_row["measured"] == 1.5 and reduce_row["figure"] == "all_reduce busbw, 16 MiB, 2 ranks"
    assert broadcast_row["note"].endswith("WRONG RESULT")


def test_flat_metrics_carry_the_rated_figure_and_the_fraction_beside_each_figure():
    flat = figures.flat(figures.gemm_rows([gemm_result("bf16", 791.6)], H100))
    assert flat["gemm_bf16"] == 791.6 and flat["gemm_bf16_rated"] == 989.5
    assert flat["gemm_bf16_of_rated"] == pytest.approx(0.8)


@pytest.mark.parametrize("args, steps", [((), 6), (("--only", "gemm,burn"), 2), (("--only=memory",), 1)])
def test_a_run_plans_one_step_per_part(args, steps):
    assert planned_steps(list(args), {}) == steps


def test_launch_rows_name_each_time_and_how_it_was_taken():
    rows = figures.launch_rows({"calls": 1000, "roundtrips": 50, "eager_host_us": 4.1, "eager_device_us": 2.2,
                                "device_clock": "CUDA events", "roundtrip_us": 9.5, "graph_kernels": 100,
                                "graph_host_us": 0.05, "graph_device_us": 1.1})
    assert [(r["figure"], r["measured"]) for r in rows] == [
        ("eager launch, host dispatch (mean of 1000)", 4.1), ("eager launch, device time (mean of 1000)", 2.2),
        ("launch + synchronise, round trip (median of 50)", 9.5), ("graph replay, host per kernel (mean)", 0.05),
        ("graph replay, device per kernel (mean)", 1.1)]
    assert rows[1]["note"] == "CUDA events" and all(r["rated"] is None for r in rows)


def test_every_figure_a_part_can_give_is_declared_with_its_unit():
    """Every dtype and collective op, every memory kind and transfer, rated on an H100: the record declares each
    flat key (the strict suite raises on one it does not), so no figure reaches a reader without its unit."""
    from workloads.microbench.collectives import OPS
    from workloads.microbench.gemm import DTYPES
    from workloads.microbench.result_record import MicrobenchResult

    points = [{"bytes": 2**28, "mode": m, "direction": d, "best_gbps": 20.0, "median_gbps": 19.0}
              for m in ("pinned", "pageable") for d in ("h2d", "d2h")]
    link = {"source": "NVML", "generation": 5, "width": 16, "gbps_per_direction": 63.0}
    rows = (figures.gemm_rows([gemm_result(d, 100.0) for d in DTYPES], H100)
            + figures.memory_rows({"buffer_bytes": 2**30, "kinds": {k: {"best_gbps": 3000.0, "median_gbps": 2900.0}
                                                                      for k in figures.MEMORY_WORDS}}, H100)
            + figures.transfer_rows(points, link, None)
            + figures.launch_rows({"calls": 10, "roundtrips": 5, "eager_host_us": 4.0, "eager_device_us": 2.0,
                                   "roundtrip_us": 9.0, "graph_host_us": 0.1, "graph_device_us": 1.0})
            + figures.burn_rows({"status": "PASS", "iterations": 4, "dtype": "fp32", "n": 64, "seconds": 1.0})
            + figures.collective_rows([{"op": op, "bytes": 2**20, "ranks": 2, "time_us": 9.0, "algbw_gbps": 1.0,
                                        "busbw_gbps": 1.5, "correct": True} for op in OPS]))
    flat = figures.flat(rows)
    record = MicrobenchResult.of(flat)
    assert record.undeclared() == [] and len(flat) == 6 * 3 + 3 * 3 + 4 * 3 + 1 + 5 + 1 + len(OPS)
    units = {k: MicrobenchResult.figure(k).unit for k in flat}
    assert units["gemm_bf16"] == units["gemm_bf16_rated"] == "TFLOP/s" and units["gemm_int8"] == "TOPS"
    assert units["gemm_fp8_of_rated"] == units["memory_read_of_rated"] == units["d2h_pageable_of_rated"] == "fraction"
    assert units["memory_fill"] == units["h2d_pageable_rated"] == units["collective_broadcast"] == "GB/s"
    assert units["launch_graph_device_us"] == "us" and units["pcie_link"] == units["burn"] == "text"
    # a family's label names its dtype, op or direction in either language; a memory kind is said, not its key
    assert MicrobenchResult.figure("gemm_fp16_of_rated").label("zh") == "fp16 矩阵乘 / 其标称峰值"
    assert MicrobenchResult.figure("memory_read_of_rated").label("zh") == "设备内存只读 / 标称显存带宽"
    assert MicrobenchResult.figure("memory_copy_rated").label("en") == "GB/s rated memory bandwidth (beside memory copy)"
    assert MicrobenchResult.figure("d2h_pageable_of_rated").label("zh") == "设备到主机（可分页）/ PCIe 链路单向带宽"
    assert MicrobenchResult.figure("collective_all_gather").label("en").startswith("GB/s all_gather ")
