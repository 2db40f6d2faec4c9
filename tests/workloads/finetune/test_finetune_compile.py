"""finetune's ``--compile`` (issue 40 item 6): bare, it compiles each decoder block in place (PyTorch's regional
compilation: one block's code, reused by the others), ``--compile model`` the whole model; a compile that fails its
first step falls back to eager once, naming the regional compile; the result says which compile ran."""

import contextlib
import io
import json

import pytest

torch = pytest.importorskip("torch")

from workloads.child.harness import Emitter, WorkloadError  # noqa: E402
from workloads.finetune import train  # noqa: E402
from workloads.finetune.options import build_parser, check  # noqa: E402

# the least a step can be: one sequence of 8 tokens, full fine-tune (every block's input then needs a gradient, so
# the four blocks share one compiled graph; LoRA's frozen embedding gives the first block a second one)
TINY = ["--model", "tiny", "--mode", "full", "--device", "cpu", "--batch-size", "1", "--seq-len", "8",
        "--amp", "off", "--warmup", "0", "--threads", "2"]


def compiled_in_place(blocks) -> bool:
    """Whether every block's call goes through compiled code (what nn.Module.compile sets)."""
    blocks = list(blocks)
    return bool(blocks) and all(getattr(b, "_compiled_call_impl", None) is not None for b in blocks)


@pytest.mark.parametrize("argv, scope", [([], None), (["--compile"], "block"), (["--compile", "block"], "block"),
                                         (["--compile", "model"], "model"), (["--compile=model"], "model")])
def test_the_bare_flag_is_the_regional_compile(argv, scope):
    assert build_parser().parse_args([*argv, "--steps", "2"]).compile == scope


def test_a_bad_compile_value_is_refused():
    with pytest.raises(WorkloadError, match=r"argument --compile: invalid choice: 'layer'"):
        build_parser().parse_args(["--compile", "layer"])


def _run(monkeypatch, *extra):
    """A run in this process, as `cardbench run finetune` runs it: its step (the model, what compiled), its result's
    figures and its events."""
    kept = []

    class Kept(train.Step):
        def __init__(self, setup):
            super().__init__(setup)
            kept.append(self)

    monkeypatch.setattr(train, "Step", Kept)
    args = build_parser().parse_args([*TINY, *extra])
    stream = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):   # its run log
        assert train.run(Emitter(stream=stream), args, check(args)) == 0
    events = [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
    (result,) = [e for e in events if e["event"] == "result"]
    return kept[0], result["metrics"], events


def test_a_failing_regional_compile_falls_back_to_eager_once(monkeypatch):
    """nn.Module.compile wraps the block's call with torch.compile: a compile that fails at the first step (no C++
    compiler, an unsupported op) leaves each block eager again and one fallback event that says which compile."""
    def broken_compile(fn, *args, **kwargs):
        def run(*a, **k):
            raise RuntimeError("BackendCompilerFailed: no C++ compiler for inductor")
        return run

    monkeypatch.setattr(torch, "compile", broken_compile)
    step, figures, events = _run(monkeypatch, "--compile", "--steps", "2")
    (fallback,) = [e for e in events if e["event"] == "fallback"]
    assert "BackendCompilerFailed" in fallback["error"]
    assert fallback["action"] == ("the regional torch.compile (each block compiled in place) failed: continuing with "
                                  "the eager model")
    assert not any(getattr(b, "_compiled_call_impl", None) for b in step.setup.model.layers)
    assert figures["compiled"] == "off" and len(figures["losses"]) == 2 and figures["fallbacks"][0]["step"] == 1
    assert all(loss == loss for loss in figures["losses"])   # finite: the eager steps ran


def test_the_regional_compile_compiles_each_block_once_and_keeps_eager_s_loss(monkeypatch):
    """The real compile on the CPU (inductor, gcc): every block's call is compiled, dynamo made one graph for the four
    blocks, the state_dict keeps its names, and the losses are eager's at the same seed."""
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    try:
        step, figures, _ = _run(monkeypatch, "--compile", "--steps", "2")
        assert compiled_in_place(step.setup.model.layers) and figures["compiled"] == "block"
        assert figures["fallbacks"] == []
        assert counters["stats"]["unique_graphs"] == 1
        assert not [k for k in step.setup.model.state_dict() if "_orig_mod" in k]
    finally:
        torch._dynamo.reset()
    _, eager, _ = _run(monkeypatch, "--steps", "2")
    assert eager["compiled"] == "off"
    assert figures["losses"] == pytest.approx(eager["losses"], rel=1e-4)


class _Stamps:
    def __init__(self):
        self.phases, self.notes = [], {}

    def phase(self, name, at=None):
        self.phases.append(name)

    def note(self, **found):
        self.notes.update(found)


@pytest.mark.parametrize("fails", [False, True])
def test_the_cold_start_compiles_as_the_run_does(monkeypatch, fails):
    """cold_child's compile phase under --compile block: each block of the model compiled in place (the model itself
    stepped), or, where the compile fails, each block eager again and the failure said."""
    from workloads.finetune import cold_child
    from workloads.models.llama.model import Llama
    from workloads.models.llama.presets import LlamaConfig

    compiled = []

    def recorded_compile(fn, *args, **kwargs):
        compiled.append(fn)
        if fails:
            def run(*a, **k):
                raise RuntimeError("InductorError: no C++ compiler")
            return run
        return fn   # the block's own call: the phase runs eager, as compiled code would

    monkeypatch.setattr(torch, "compile", recorded_compile)
    model = Llama(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=3,
                              num_attention_heads=4, num_key_value_heads=2))
    model.init_random(0)
    stamps = _Stamps()
    request = {"compile": "block", "lora": {"amp": "off"}}
    stepped, how = cold_child._compiled(request, model, torch.randint(64, (1, 9)), torch.device("cpu"), stamps)
    assert stepped is model and stamps.phases == ["compiled"] and len(compiled) == 3   # one per block, in place
    if fails:
        assert how == "failed" and "no C++ compiler" in stamps.notes["compile_error"]
        assert not any(b._compiled_call_impl for b in model.layers)
    else:
        assert how == "block_compiled" and compiled_in_place(model.layers)
        assert all(p.grad is None for p in model.parameters())   # the phase's gradients dropped
