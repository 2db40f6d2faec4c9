"""Device names match on whole words, case aside: the one rule for the rated table and the ResNet-50 baselines."""

from workloads.device_names import has_word
from workloads.resnet50.baselines import peak_tflops


def test_whole_words_only_case_aside():
    assert has_word("NVIDIA L4", "L4") and not has_word("NVIDIA L40S", "L4") and has_word("nvidia a100-sxm4", "A100")


def test_the_baselines_match_by_the_same_rule():
    assert peak_tflops("NVIDIA L40S", "bf16") == 362.0 and peak_tflops("NVIDIA L4", "bf16") == 121.0
    assert peak_tflops("NVIDIA A10", "bf16") == 125.0 and peak_tflops("NVIDIA A100-SXM4-80GB", "bf16") == 312.0
    assert peak_tflops("some other card", "bf16") is None
