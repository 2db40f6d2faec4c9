"""rated.csv: every figure it holds has a source and a date, and a device name finds its own card, never a near one."""

from __future__ import annotations

import pytest

from workloads.facts import rated


def test_every_figure_in_the_table_has_a_source_and_a_date():
    devices = rated.load()
    figures = [(d.device, key, f) for d in devices for key, f in d.figures.items()]
    assert len(devices) >= 15 and len(figures) >= 100
    for device, key, figure in figures:
        assert figure.source.startswith("https://"), (device, key)
        assert len(figure.date) == 10 and figure.date[4] == "-", (device, key)
        assert figure.value > 0, (device, key)


@pytest.mark.parametrize("name, device", [
    ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"),   # the SXM part's CUDA name carries no form factor
    ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe 80GB"),
    ("NVIDIA H200", "NVIDIA H200 SXM 141GB"),
    ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"),
    ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 PCIe 40GB"),
    ("NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"),
    ("NVIDIA L4", "NVIDIA L4"),
    ("NVIDIA L40S", "NVIDIA L40S"),
    ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
    ("NVIDIA B200", "NVIDIA B200 (HGX)"),
    ("MTT S4000", "Moore Threads MTT S4000"),
    ("MLU370-X8", "Cambricon MLU370-X8"),
])
def test_a_device_name_finds_its_card(name, device):
    assert rated.lookup(name).device == device


@pytest.mark.parametrize("name", ["NVIDIA L40", "NVIDIA GH200 480GB", "NVIDIA H20", "cpu (x86_64, 2 threads)",
                                  "Intel(R) Xeon(R) Platinum 8480+"])
def test_a_near_name_finds_nothing(name):
    """Whole words: an L40 is not an L4, an H20 not an H200, and the CPU has no rated figures."""
    assert rated.lookup(name) is None


def test_a_variant_without_verified_figures_gets_none_not_its_sibling_s():
    """An NVL card or a 4090 D must not be read against the SXM part's or the 4090's figures."""
    for name in ("NVIDIA H100 NVL", "NVIDIA H200 NVL", "NVIDIA GeForce RTX 4090 D"):
        found = rated.lookup(name)
        assert found is not None and found.figures == {}, name


def test_dense_figures_are_half_the_sheets_sparsity_figures():
    h100 = rated.lookup("NVIDIA H100 80GB HBM3")
    assert (h100.get("bf16_tflops").value, h100.get("fp8_tflops").value, h100.get("fp32_tflops").value) == (989.5, 1979, 67)
    assert "sparsity" in h100.get("bf16_tflops").note


@pytest.mark.parametrize("line, said", [
    ("X,X,fp64_tflops,1,https://x,2026-01-01,", "unknown figure 'fp64_tflops'"),
    ("X,X,fp32_tflops,lots,https://x,2026-01-01,", "fp32_tflops 'lots' is not a number"),
    ("X,X,fp32_tflops,1,,,", "X fp32_tflops has no source or date"),
])
def test_a_bad_row_is_named_by_its_line(tmp_path, line, said):
    path = tmp_path / "rated.csv"
    path.write_text(",".join(rated.COLUMNS) + "\n" + line + "\n")
    with pytest.raises(rated.RatedTableError, match="line 2: " + said.replace("(", r"\(")):
        rated.load(path)
