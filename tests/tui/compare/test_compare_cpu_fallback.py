"""compare names the ops a side's run sent to the CPU (issue 38 item 2): its figures include them, and a ratio
against such a run is the fallback's as much as the card's."""
import json

from report_runs import resnet_run
from tui.store import RunStore

FELL_BACK = {"cpu_fallback_ops": [{"op": "aten::roll", "calls_per_step": 2.0, "share_of_step": 0.125,
                                   "ms_per_step": 4.4, "copies_per_step": 4.0, "copy_bytes_per_step": 4096}],
             "host_device_copies_per_step": 6.0, "host_device_copy_bytes_per_step": 8192,
             "cpu_fallback_steps_watched": 3}
CLEAN = {"cpu_fallback_ops": [], "host_device_copies_per_step": 2.0, "host_device_copy_bytes_per_step": 1024,
         "cpu_fallback_steps_watched": 3}


def test_a_side_whose_ops_fell_back_to_the_cpu_is_named_in_a_note(compare, tmp_path):
    store = RunStore(tmp_path / "runs")
    code, out, err = compare(resnet_run(store, figures=CLEAN), resnet_run(store, figures=FELL_BACK), "--json")
    assert code == 0, err
    notes = [n for n in json.loads(out)["notes"] if "ran on the CPU" in n]
    assert notes == ["resnet50: on B, aten::roll (12.5 % of a step) ran on the CPU while the model was on the card "
                     "(PyTorch's CPU fallback): its figures include them"]


def test_runs_without_the_check_or_without_a_fallback_have_no_such_note(compare, tmp_path):
    store = RunStore(tmp_path / "runs")
    code, out, err = compare(resnet_run(store), resnet_run(store, figures=CLEAN), "--json")
    assert code == 0, err
    assert not [n for n in json.loads(out)["notes"] if "ran on the CPU" in n]
