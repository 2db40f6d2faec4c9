"""Every figure a generate run gives is declared by its typed record
(`workloads.generate.result_record.GenerateResult`), so its RESULT line says each by its label and unit: a run with
a --prompt's text whose bound was measured low (the share of bandwidth then published only as unreliable)."""

import io
import json
import sys
import types

from tui.figures import result_text
from workloads.child import bandwidth
from workloads.child.harness import Emitter
from workloads.generate.cli import main
from workloads.generate.result_record import GenerateResult
from workloads.result_record import STRICT_ENV


class _Tokenizer:
    """Stands in for the optional `tokenizers` package: one id per character."""

    @classmethod
    def from_file(cls, path):
        return cls()

    def encode(self, text):
        return types.SimpleNamespace(ids=[ord(c) % 101 for c in text])

    def decode(self, ids):
        return "".join(chr(ord("a") + i % 26) for i in ids)


def test_a_run_with_a_prompt_and_a_bound_read_low_declares_every_figure(tmp_path, monkeypatch):
    # not strict: a new undeclared key is kept and listed, so the test names every one at once
    monkeypatch.delenv(STRICT_ENV, raising=False)
    monkeypatch.setenv("THP_MEM_ALLOC_ENABLE", "1")  # main sets it for its child process; keep ours as it was
    monkeypatch.setitem(sys.modules, "tokenizers", types.SimpleNamespace(Tokenizer=_Tokenizer))
    (tmp_path / "tokenizer.json").write_text("{}")
    # far below what even the tiny shape reads a second: decoding beats its bound
    monkeypatch.setattr(bandwidth, "measure_read_bandwidth", lambda device, *a, **k: bandwidth.ReadBandwidth(
        best_gbps=1e-6, median_gbps=1e-6, nbytes=2**20, repeats=1, method="fake", rates=(1e-6,),
        round_bests=(1e-6,)))
    monkeypatch.setattr(bandwidth, "last_level_cache_bytes", lambda device: None)
    out = io.StringIO()
    assert main(Emitter(out), ["--model-size", "tiny", "--device", "cpu", "--prompt", "hi", "--tokenizer",
                               str(tmp_path), "--tokens", "6", "--repeat", "1", "--warmup", "1"]) == 0
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    m = next(e for e in events if e["event"] == "result")["metrics"]
    assert {"sample_text", "bandwidth_fraction_unreliable", "tokens_per_s_runs", "product_split"} <= m.keys()
    assert GenerateResult.of(m).undeclared() == []
    line = result_text("generate", m)
    assert [key for key in m if "_" in key and key in line] == [], line   # none said by its key
    assert "tokens/s end to end, all sequences" in line and "GB/s device read bandwidth, median of the rounds" in line
    assert "share of read bandwidth achieved unreliable" in line   # said beside the share it stands for


def test_the_log_says_the_share_of_bandwidth_as_the_result_line_does(capsys):
    """run.log read '41%' beside the RESULT line's and the pane's '41.4 %': one figure, one spelling."""
    from tui.figures import result_text
    from workloads.generate.measure import log_summary

    m = {"tokens_per_s": 51.89, "tokens_per_s_runs": [51.89], "aggregate_tokens_per_s": 51.89,
         "bound_tokens_per_s": 125.4, "device_read_gbps": 63.5, "bandwidth_gbps": 26.3, "bandwidth_fraction": 0.4142,
         "latency_p50_s": 0.0175, "latency_p99_s": 0.0536, "ttft_s": 0.0888}
    log_summary(m)
    logged = capsys.readouterr().err
    assert "41.4 % of it" in logged and "share of read bandwidth achieved 41.4 %" in result_text("generate", m)
