"""Device names match on whole words, case aside; ResNet-50's FLOP bound reads the one rated table."""

from workloads.device_names import has_word
from workloads.microbench import rated
from workloads.resnet50.baselines import bounds, peak_tflops


def test_whole_words_only_case_aside():
    assert has_word("NVIDIA L4", "L4") and not has_word("NVIDIA L40S", "L4") and has_word("nvidia a100-sxm4", "A100")


def test_the_baselines_read_the_rated_table():
    assert peak_tflops("NVIDIA L40S", "bf16") == 362.05 and peak_tflops("NVIDIA L4", "bf16") == 121.0
    assert peak_tflops("NVIDIA A10", "bf16") == 125.0 and peak_tflops("NVIDIA A100-SXM4-80GB", "bf16") == 312.0
    assert peak_tflops("some other card", "bf16") is None
    for name in ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA L40S", "Tesla T4", "Tesla V100-SXM2-32GB"):
        device = rated.lookup(name)
        for precision, figure in (("bf16", "bf16_tflops"), ("fp16", "fp16_tflops")):
            want = device.get(figure).value if device.get(figure) else None
            assert peak_tflops(name, precision) == want, (name, precision)


def test_an_h100_pcie_is_read_against_its_own_peak_not_the_sxm_s():
    """The PCIe card's dense BF16 is 756.5 TFLOP/s; read against the SXM's 989.5 its utilisation read ~24 % low."""
    assert peak_tflops("NVIDIA H100 PCIe", "bf16") == 756.5
    assert peak_tflops("NVIDIA H100 80GB HBM3", "bf16") == 989.5
    assert peak_tflops("NVIDIA H100 NVL", "bf16") is None   # not verified: no bound rather than the SXM's
    figures = bounds(2000.0, 224, "NVIDIA H100 PCIe", "bf16")
    assert figures["peak_tflops"] == 756.5 and figures["flop_utilisation"] == round(2000 * 24.5 / 1000 / 756.5, 4)


def test_fp32_means_tf32_where_the_card_has_it_and_plain_fp32_where_not():
    assert peak_tflops("NVIDIA A100-SXM4-80GB", "fp32") == 156.0      # TF32 tensor: cuDNN's default for fp32
    assert peak_tflops("Tesla V100-SXM2-32GB", "fp32") == 15.7         # Volta has no TF32
    assert peak_tflops("Tesla T4", "fp32") == 8.1
    assert peak_tflops("Tesla V100-SXM2-32GB", "bf16") is None         # nor BF16
