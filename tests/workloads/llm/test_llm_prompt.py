"""--prompt with --weights: the directory's tokenizer.json, the greedy continuation in the log (transformers'
own tokens, decoded), and a missing or mismatched tokenizer refused in one line before any run directory."""

import io
import json
import subprocess
import sys

import pytest
from paths import REPO

from workloads.child.harness import Emitter, WorkloadError
from workloads.llm.cli import build_parser, main
from workloads.llm.plan import make_plan

tokenizers = pytest.importorskip("tokenizers", reason="the `test` extra installs tokenizers with transformers")

PROMPT = "w5 w17 w250 w3 w99"


def _tokenizer(directory, size):
    """A word-level tokenizer.json of ``size`` tokens: w0, w1, ... and [UNK] last."""
    vocab = {f"w{i}": i for i in range(size - 1)}
    vocab["[UNK]"] = size - 1
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.save(str(directory / "tokenizer.json"))
    return tok


def _config(directory, vocab_size=300):
    (directory / "config.json").write_text(json.dumps({
        "model_type": "llama", "vocab_size": vocab_size, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "max_position_embeddings": 1024}))


def _plan(*argv):
    return make_plan(build_parser().parse_args(list(argv)), on_cpu=True)


def test_greedy_text_from_the_prompt_is_transformers_and_goes_to_the_log(tmp_path, capsys, monkeypatch):
    pytest.importorskip("transformers", reason="the `test` extra installs transformers for this parity")
    import torch
    from llama_checkpoints import save_transformers  # the parity tests' checkpoint: GQA, Llama-3 rotary, untied head

    monkeypatch.setenv("THP_MEM_ALLOC_ENABLE", "1")  # main sets it for its child process; keep ours as it was
    hf = save_transformers("llama", tmp_path)
    tok = _tokenizer(tmp_path, 300)
    ids = tok.encode(PROMPT).ids
    # transformers' greedy continuation by its own forward (generate's min_new_tokens would mask the end-of-text id
    # 2, which random weights pick here; the workload runs every step, as a benchmark does)
    seq = list(ids)
    with torch.no_grad():
        for _ in range(12):
            seq.append(int(hf(torch.tensor([seq])).logits[0, -1].argmax()))
    want = seq[len(ids):]
    out = io.StringIO()
    code = main(Emitter(out), ["--weights", str(tmp_path), "--prompt", PROMPT, "--output-len", "12", "--batch-size",
                               "2", "--repeat", "1", "--pp", "0", "--tg", "0", "--device", "cpu"])
    assert code == 0
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    result = next(e for e in events if e["event"] == "result")["metrics"]
    assert result["sample_text"] == tok.decode(want)
    assert (result["input_len"], result["output_len"], result["batch_size"]) == (5, 12, 2)
    log = capsys.readouterr().err
    assert f"prompt: {PROMPT!r}" in log
    assert f"generated (greedy, sequence 1): {tok.decode(want)!r}" in log


@pytest.mark.parametrize("argv, said", [
    (["--prompt", "hi"], "--prompt needs --weights DIR: random weights have no tokenizer"),
    (["--prompt", "hi", "--weights", "{d}"], "--prompt needs a tokenizer and {d}/tokenizer.json does not exist"),
    (["--prompt", "hi", "--weights", "{d}", "--sweep"], "--prompt and --sweep are exclusive"),
    (["--prompt", "hi", "--weights", "{d}", "--input-len", "8"], "--prompt and --input-len are exclusive"),
])
def test_a_prompt_without_a_tokenizer_is_refused_by_name(tmp_path, argv, said):
    _config(tmp_path)
    with pytest.raises(WorkloadError) as raised:
        _plan(*[a.format(d=tmp_path) for a in argv])
    assert raised.value.message == said.format(d=tmp_path)


@pytest.mark.parametrize("rows, tokens, refused", [(300, 301, True), (5000, 3000, True), (300, 300, False),
                                                   (300, 280, False)])
def test_a_tokenizer_is_refused_when_its_vocabulary_is_not_the_embeddings(tmp_path, rows, tokens, refused):
    # more tokens than rows, or 2,000 rows unused (padding leaves under 1 %, or under 1,024), is another model's
    _config(tmp_path, vocab_size=rows)
    _tokenizer(tmp_path, tokens)
    if not refused:
        plan = _plan("--weights", str(tmp_path), "--prompt", "w1 w2 w3", "--output-len", "4")
        assert plan.prompt_ids == (1, 2, 3) and plan.cells[0].input_len == 3
        return
    with pytest.raises(WorkloadError) as raised:
        _plan("--weights", str(tmp_path), "--prompt", "w1 w2")
    assert raised.value.message == (f"{tmp_path}/tokenizer.json has {tokens:,} tokens, the weights' embedding "
                                    f"{rows:,} rows: not this model's tokenizer")


def test_cardbench_run_refuses_a_mismatched_tokenizer_before_any_run_directory(tmp_path):
    _config(tmp_path, vocab_size=300)
    _tokenizer(tmp_path, 5000)
    out = subprocess.run([sys.executable, "-m", "tui.cli", "run", "llm", "--weights", str(tmp_path), "--prompt", "w1",
                          "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=120, cwd=REPO)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"cardbench run llm: {tmp_path}/tokenizer.json has 5,000 tokens, the weights' ")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr and not (tmp_path / "runs").exists()


def test_the_plan_reads_no_torch():
    # the refusals above happen before torch is imported, so `cardbench run` decides them before recording a run
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r}); import workloads.llm.plan, workloads.llm.prompt; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
