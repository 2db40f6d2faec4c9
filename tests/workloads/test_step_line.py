"""A step event's run.log line: counts over what the run plans, and every rate saying which one it is."""
from workloads import protocol


def test_a_training_step_counts_over_the_cap_and_names_its_rate():
    step = protocol.Step(step=3, epoch=1, loss=3.935, throughput=34.1, unit="images/s", step_s=0.1175,
                         data_wait_s=0.0002, memory_allocated_bytes=1098 * 2**20, total_steps=6, total_epochs=1,
                         extra={"warmup": True})
    assert step.describe() == ("step 3/6 | epoch 1/1 | warm-up | loss 3.9350 | 34.1 images/s this step | "
                               "step 117.5 ms | data-wait 0.2 ms | mem 1098 MiB")


def test_a_token_step_counts_tokens_and_its_rate_is_over_its_window():
    step = protocol.Step(step=16, throughput=2.8, unit="tokens/s", step_s=0.3621, total_steps=48, counts="tokens",
                         throughput_window=16)
    assert step.describe() == "token 16/48 | 2.8 tokens/s over the last 16 tokens | token 362.1 ms"
    assert step.rate_span() == "last 16 tokens"


def test_the_new_fields_survive_the_wire_and_an_older_step_still_reads():
    sent = protocol.Step(step=9, throughput=5.0, unit="tokens/s", total_steps=40, counts="tokens", throughput_window=8)
    got = protocol.parse_line(sent.to_json())
    assert (got.total_steps, got.counts, got.throughput_window, got.extra) == (40, "tokens", 8, {})
    # a run written before these fields: its step counts steps, its rate is the step's own
    old = protocol.parse_line('{"event":"step","t":1.0,"step":5,"epoch":1,"throughput":32.2,"unit":"images/s"}')
    assert old.describe() == "step 5 | epoch 1 | 32.2 images/s this step" and old.rate_span() == "last step"


def test_a_rate_a_tool_printed_says_which_rate_it_is():
    step = protocol.Step(step=5, loss=0.4, throughput=45.0, unit="it/s", total_steps=10,
                         extra={"rate_as": "tqdm's smoothed rate"})
    assert step.describe() == "step 5/10 | loss 0.4000 | 45.0 it/s (tqdm's smoothed rate)"


def test_a_step_of_a_run_of_parts_names_its_part():
    step = protocol.Step(step=2, total_steps=5, extra={"part": "memory", "label": "memory"})
    assert step.describe() == "step 2/5 | memory"


def test_a_part_s_step_says_the_part_is_done():
    # issue 22.12: the launcher and log counted parts done while run.log counted the part started
    step = protocol.Step(step=1, total_steps=4, counts="parts", extra={"part": "gemm", "label": "gemm"})
    assert step.describe() == "part 1/4 done | gemm"
