"""The child's own English sentences, matched back to their catalogue message to be said in the reader's language;
words from outside (an error) kept as written."""

from workloads.catalogue import Message, say
from workloads.microbench.words import resaid


def test_a_sweep_s_end_is_said_again_with_the_numbers_and_the_error_it_holds():
    written = say("workload.microbench.stop.failed", n=4096, error="torch.OutOfMemoryError: CUDA out of memory")
    assert written == "4096 x 4096 failed: torch.OutOfMemoryError: CUDA out of memory"  # the wire's text
    said = resaid(written)
    assert isinstance(said, Message) and said.en == written
    assert said.zh == "4096×4096 失败：torch.OutOfMemoryError: CUDA out of memory"
    assert resaid("one call at 8192 took 2.31 s (cap 2 s)").zh == "尺寸 8192 单次调用耗时 2.31 秒（上限 2 秒）"


def test_a_placeholder_written_twice_must_match_alike_and_other_text_stays_as_written():
    assert resaid("4096 x 2048 would not fit in a quarter of the free memory") == \
        "4096 x 2048 would not fit in a quarter of the free memory"
    assert resaid("HIP error: invalid device function") == "HIP error: invalid device function"
    assert resaid("") == "" and resaid(None) is None
