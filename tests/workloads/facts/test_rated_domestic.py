"""rated.csv and the domestic accelerators: a name their own tools print finds its own row, and an unknown,
ambiguous or masked name finds none, so no share of a peak is ever read against a guessed row (N/A)."""

from __future__ import annotations

import csv

import pytest

from workloads.facts import rated

# the names the cards' own tools print (npu-smi, cnmon, mthreads-gmi, mx-smi, efsmi via lspci, xpu_smi, hl-smi,
# rocm-smi/hy-smi) -> the table's device
KNOWN = [
    ("910A", "Huawei Ascend 910 (910A)"),
    ("910B1", "Huawei Ascend 910B1"),
    ("910B2", "Huawei Ascend 910B2"),
    ("910B3", "Huawei Ascend 910B3"),
    ("910B4", "Huawei Ascend 910B4"),
    ("910B2C", "Huawei Ascend 910B2C"),      # not the 910B2's row
    ("310P3", "Huawei Ascend 310P3"),
    ("MLU370-X4", "Cambricon MLU370-X4"),
    ("MLU370-X8", "Cambricon MLU370-X8"),
    ("MLU590", "Cambricon MLU590"),
    ("MTT S4000", "Moore Threads MTT S4000"),
    ("MTT S5000", "Moore Threads MTT S5000"),
    ("MetaX C500", "MetaX C500"),
    ("MXC500", "MetaX C500 (mx-smi MXC500)"),
    ("MXC550", "MetaX C550 (mx-smi MXC550)"),
    ("S60 [Enflame]", "Enflame S60"),          # lspci's name, which says whose S60 it is
    ("Kunlunxin P800", "Kunlunxin P800"),
    ("HL-225", "Intel Gaudi 2 (HL-225)"),
    ("HL-325L", "Intel Gaudi 3 (HL-325L)"),
    ("K100", "Hygon DCU K100"),
    ("K100_AI", "Hygon DCU K100_AI"),          # another card: not the K100's row
    ("Z100", "Hygon DCU Z100"),
]

# unknown, ambiguous or masked: each must be N/A
UNKNOWN = [
    "910B",                      # the old Ascend 910's variant and the 2023 chip both answer so
    "910",
    "910ProB",
    "Ascend 310",
    "S60",                       # Enflame's S60 or Moore Threads' MTT S60
    "MTT S60",
    "P800",                      # Kunlunxin's P800 or NVIDIA's Quadro P800
    "NVIDIA Quadro P800",
    "R300",
    "MLU370",                    # X4 or X8
    "MLU370-S4",
    "S5000",
    "MTT S3000",
    "MXC600",
    "MetaX C600",
    "HL-225B",                   # the China variant of the Gaudi 2
    "HL-338",                    # the Gaudi 3 PCIe card: another power limit
    "BW",
    "Z100L",
    "DCU xxxx",                  # masked by the cloud
    "xxx",
    "NVIDIA xxx",                # a compatibility layer that answers as NVIDIA with a masked name
    "NVIDIA",
    "NVIDIA Graphics Device",
    "NVIDIA CUDA compatible device",
    "Iluvatar BI-V150",
    "Device 1e36:c032",
    "",
]


@pytest.mark.parametrize("name, device", KNOWN)
def test_a_name_the_cards_tool_prints_finds_its_own_row(name, device):
    found = rated.lookup(name)
    assert found is not None and found.device == device, (name, found)


@pytest.mark.parametrize("name", UNKNOWN)
def test_an_unknown_ambiguous_or_masked_name_is_na(name):
    assert rated.lookup(name) is None, name


def test_at_least_twenty_names_are_fed():
    assert len(KNOWN) + len(UNKNOWN) >= 20 and len(UNKNOWN) >= 20


def test_published_figures_are_the_makers_and_the_rest_are_blank():
    ascend = rated.lookup("910A")
    assert (ascend.get("fp16_tflops").value, ascend.get("int8_tops").value) == (256, 512)
    assert ascend.get("bf16_tflops") is None and ascend.get("tdp_w") is None
    gaudi2, gaudi3 = rated.lookup("HL-225"), rated.lookup("HL-325L")
    assert (gaudi2.get("bf16_tflops").value, gaudi2.get("memory_gb").value, gaudi2.get("tdp_w").value) == (432, 96, 600)
    assert gaudi2.get("fp8_tflops") is None
    assert (gaudi3.get("bf16_tflops").value, gaudi3.get("fp8_tflops").value, gaudi3.get("memory_gbps").value) == (
        1835, 1835, 3670)
    s5000 = rated.lookup("MTT S5000")
    assert (s5000.get("memory_gb").value, s5000.get("memory_gbps").value) == (80, 1600)
    assert s5000.get("fp8_tflops") is None and s5000.get("bf16_tflops") is None
    # the 910B3's memory and bandwidth are CANN's own Atlas A2 figures (its migration guide), for `cardbench fit`;
    # no peak is published per variant, so its compute shares still read N/A
    b3 = rated.lookup("910B3")
    assert {k: f.value for k, f in b3.figures.items()} == {"memory_gb": 64, "memory_gbps": 1600}
    assert rated.rated_peak("Ascend 910B3", "bf16") is None and rated.rated_peak("Ascend 910B3", "fp16") is None
    for name in ("910B2C", "310P3", "MLU370-X4", "MLU590", "MetaX C500", "MXC550", "S60 [Enflame]",
                 "Kunlunxin P800", "K100", "K100_AI", "Z100"):
        assert rated.lookup(name).figures == {}, name   # looked for, not published: every share reads N/A


def test_every_domestic_row_says_where_it_was_read_or_that_it_was_looked_for():
    devices = {device for _, device in KNOWN}
    with open(rated.RATED_CSV, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["device"] in devices]
    assert {r["device"] for r in rows} == devices
    for r in rows:
        assert r["note"].strip(), r
        if r["value"].strip():
            assert r["source"].startswith("https://") and r["date"], r
        else:
            assert "looked for" in r["note"], r
