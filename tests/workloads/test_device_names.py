"""Device names match on whole words, case aside (the rated table's lookup: tests/workloads/facts/test_rated*.py)."""

from workloads.device_names import has_word


def test_whole_words_only_case_aside():
    assert has_word("NVIDIA L4", "L4") and not has_word("NVIDIA L40S", "L4") and has_word("nvidia a100-sxm4", "A100")

