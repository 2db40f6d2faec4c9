"""The one rule for which rated peak a precision reads against (issue 35 item 1): ResNet-50's bound, compare
--against, the LLM, fine-tuning, microbench and dataio all ask workloads.facts.rated.rated_peak. Before, compare
read fp32 against TF32 alone, so on a V100 (no TF32) the report stated a bound that compare --against did not."""

from types import SimpleNamespace

import pytest

from tui.compare import published
from workloads.facts import rated
from workloads.facts.formatting import format_number
from workloads.facts.rated import peak_figures, rated_peak
from workloads.resnet50.baselines import bounds


def _value(name, precision, convolutions=True):
    peak = rated_peak(name, precision, convolutions=convolutions)
    return peak.value if peak else None


def test_the_baselines_read_the_rated_table():
    assert _value("NVIDIA L40S", "bf16") == 362.05 and _value("NVIDIA L4", "bf16") == 121.0
    assert _value("NVIDIA A10", "bf16") == 125.0 and _value("NVIDIA A100-SXM4-80GB", "bf16") == 312.0
    assert _value("some other card", "bf16") is None
    for name in ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA L40S", "Tesla T4", "Tesla V100-SXM2-32GB"):
        device = rated.lookup(name)
        for precision, figure in (("bf16", "bf16_tflops"), ("fp16", "fp16_tflops")):
            want = device.get(figure).value if device.get(figure) else None
            assert _value(name, precision) == want, (name, precision)


def test_an_h100_pcie_is_read_against_its_own_peak_not_the_sxm_s():
    """The PCIe card's dense BF16 is 756.5 TFLOP/s; read against the SXM's 989.5 its utilisation read ~24 % low."""
    assert _value("NVIDIA H100 PCIe", "bf16") == 756.5
    assert _value("NVIDIA H100 80GB HBM3", "bf16") == 989.5
    assert _value("NVIDIA H100 NVL", "bf16") is None   # not verified: no bound rather than the SXM's
    figures = bounds(2000.0, 224, "NVIDIA H100 PCIe", "bf16")
    assert figures["peak_tflops"] == 756.5 and figures["flop_utilisation"] == round(2000 * 24.5 / 1000 / 756.5, 4)


def test_fp32_convolutions_mean_tf32_where_the_card_has_it_and_plain_fp32_where_not():
    assert _value("NVIDIA A100-SXM4-80GB", "fp32") == 156.0      # TF32 tensor: cuDNN's default for fp32
    assert _value("Tesla V100-SXM2-32GB", "fp32") == 15.7         # Volta has no TF32
    assert _value("Tesla T4", "fp32") == 8.1
    assert _value("Tesla V100-SXM2-32GB", "bf16") is None         # nor BF16
    assert _value("NVIDIA A100-SXM4-80GB", "fp16 (fp32: conv2d)") == 312.0   # a fallback's note is not a precision


def test_fp32_matmuls_mean_plain_fp32():
    """torch.backends.cuda.matmul.allow_tf32 is off by default: a transformer's fp32 is the plain FP32 rate."""
    assert peak_figures("fp32") == ("fp32_tflops",) and peak_figures("fp32", convolutions=True)[0] == "tf32_tflops"
    assert _value("NVIDIA A100-SXM4-80GB", "fp32", convolutions=False) == 19.5
    assert peak_figures("tf32") == ("tf32_tflops",) and peak_figures("int8") == ("int8_tops",)
    assert peak_figures("fp64") == () and peak_figures(None, convolutions=True) == ("tf32_tflops", "fp32_tflops")


@pytest.mark.parametrize("card, query", [("Tesla V100-SXM2-32GB", "V100 SXM2"), ("NVIDIA A100-SXM4-80GB", "A100 SXM4")])
def test_an_fp32_resnet50_states_the_same_bound_in_the_report_and_in_compare_against(card, query, monkeypatch):
    report_bound = bounds(1000.0, 224, card, "fp32")   # what the run records and report.md's "read against" prints
    run = SimpleNamespace(metric={"achieved_tflops": report_bound["achieved_tflops"]}.get,
                          summary=SimpleNamespace(precision="fp32"))
    said = []
    monkeypatch.setattr(published, "message", lambda key, **values: said.append(values) or key)
    published.rated_notes(query, [SimpleNamespace(label="A", runs={"resnet50": run})])
    assert report_bound["peak_tflops"] is not None and len(said) == 1   # compare said nothing on a V100 before
    assert said[0]["rated"] == format_number(report_bound["peak_tflops"])
    assert said[0]["share"] == f"{100 * report_bound['flop_utilisation']:.1f} %"
