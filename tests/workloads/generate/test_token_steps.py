"""GPT-2's step events count timed tokens over the plan the launcher shows, and say what their rate is over."""
import io

from workloads import protocol
from workloads.child.harness import Emitter, run_main
from workloads.generate import cli
from workloads.generate.spec import SPEC


def test_steps_count_timed_tokens_up_to_the_planned_total_and_name_their_window(capfd):
    argv = ["--model-size", "tiny", "--device", "cpu", "--tokens", "10", "--prompt-len", "2", "--repeat", "2",
            "--warmup", "3", "--report-every", "4"]
    stream = io.StringIO()
    assert run_main(cli.main, argv, emitter=Emitter(stream)) == 0
    steps = [e for e in map(protocol.parse_line, stream.getvalue().splitlines()) if isinstance(e, protocol.Step)]
    planned = SPEC.steps_planned(argv)
    assert planned == 20  # 10 tokens x 2 timed runs: the 3 warm-up tokens are not counted
    assert {s.total_steps for s in steps} == {planned} and {s.counts for s in steps} == {"tokens"}
    assert steps[-1].step == planned
    # the first token of a run is its time to first token, not a decode step: windows of 4, then what is left (5)
    assert [s.throughput_window for s in steps] == [4, 4, 1, 4, 4, 1]
    assert steps[0].describe().startswith("token 5/20 | ") and " tokens/s over the last 4 tokens | " in steps[0].describe()
    # the closing line names the headline's figure as the report and the launcher do
    assert " tokens/s per sequence, median after warm-up of 2 timed runs (" in capfd.readouterr().err
