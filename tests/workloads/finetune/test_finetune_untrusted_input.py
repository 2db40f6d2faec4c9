"""finetune on inputs someone else made (issue 37): a model or batch no machine holds is refused by its estimate
before anything is built, --data is read as a stream into a compact array with each JSONL line capped, and a
JSONL nested too deep or a NUL byte past the first 64 KB is one line and exit 2.

The memory cases run in a child under an address-space limit over its own baseline (torch maps ~3 GB of address
space before anything is read), so a regression ends in MemoryError at once instead of taking the machine's memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from paths import REPO

from workloads.protocol import CHECK_ARGS_ENV

CONFIG = {"model_type": "llama", "vocab_size": 300, "hidden_size": 64, "intermediate_size": 96,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
          "max_position_embeddings": 256, "rms_norm_eps": 1e-5}


def _finetune(*args: str, check: bool = False, limit: str = "--as=6000000000") -> subprocess.CompletedProcess:
    """The workload (its argument check alone with ``check``) under an address-space limit: torch's libraries map
    ~3.3 GB, a refusal by estimate allocates nothing more, and a regression fails fast instead of swapping."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    if check:
        env[CHECK_ARGS_ENV] = "cardbench run finetune"
    return subprocess.run(["prlimit", limit, sys.executable, "-m", "workloads.finetune", *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60, env=env, cwd=REPO)


def _weights(directory, **changes):
    """A checkpoint directory: its config.json, and a model.safetensors with no tensors (the refusal comes first)."""
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({**CONFIG, **changes}))
    (directory / "model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")
    return str(directory)


def _error(out: subprocess.CompletedProcess) -> str:
    errors = [json.loads(line) for line in out.stdout.splitlines() if line.startswith('{"event":"error"')]
    return errors[0]["message"] if errors else ""


@pytest.mark.parametrize("case, said", [
    ("wide", "a device by the estimate"),         # hidden_size 10^9: 1 TB asked of the allocator at once
    ("batch", "of host memory by the estimate"),  # --batch-size 10^8: the synthetic pool alone is 1.5 TiB
    ("deep", "of host memory by the estimate"),   # 10^6 layers of width 2: tiny tensors, 100 GB of modules
])
def test_what_no_machine_holds_is_refused_by_its_estimate_before_torch(tmp_path, case, said):
    if case == "wide":
        args = ["--weights", _weights(tmp_path / "w", hidden_size=10**9), "--seq-len", "16"]
    elif case == "batch":
        args = ["--batch-size", "100000000"]
    else:
        args = ["--weights", _weights(tmp_path / "w", hidden_size=2, intermediate_size=2, num_attention_heads=1,
                                      num_key_value_heads=1, num_hidden_layers=10**6), "--seq-len", "16",
                "--device", "cpu"]
    checked = _finetune(*args, check=True)    # cardbench run's check: before a run directory exists
    assert checked.returncode == 2, checked.stderr[-2000:]
    assert said in checked.stderr and checked.stderr.count("\n") == 1 and "Traceback" not in checked.stderr
    if case == "batch":   # the workload itself refuses the same in its check (each --weights case loads torch)
        ran = _finetune(*args)
        assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
        assert said in _error(ran)


def test_a_step_the_device_cannot_hold_is_refused_before_the_model_is_built(monkeypatch):
    """On an accelerator the options alone cannot say its memory: Setup reads it, then refuses before building."""
    pytest.importorskip("torch")
    from workloads.child.harness import Emitter
    from workloads.errors import WorkloadError
    from workloads.finetune import step
    from workloads.finetune.options import build_parser, check

    args = build_parser().parse_args(["--device", "cpu", "--seq-len", "16", "--amp", "off", "--batch-size", "4"])
    config = check(args)
    monkeypatch.setattr(step, "total_memory", lambda device: 64 << 20)   # a 64 MiB device: tiny's weights are 79 MB
    monkeypatch.setattr(step.Setup, "_model", lambda self: pytest.fail("the model was built"))
    with pytest.raises(WorkloadError) as caught:
        step.Setup(args, config, Emitter())
    assert caught.value.exit_code == 2
    assert "by the estimate" in caught.value.message and "64 MiB" in caught.value.message
    assert "not even one sequence fits" in caught.value.message


# the child imports what the data path imports, reads its own address space, then limits itself to that plus HEADROOM
LIMITED = """
import json, resource, sys
from pathlib import Path
import torch
import workloads.finetune.data as data
from workloads.errors import WorkloadError
torch.ones(1 << 16).sum()   # the intra-op threads start before the baseline is read
with open('/proc/self/status') as status:
    vm = next(int(line.split()[1]) * 1024 for line in status if line.startswith('VmSize:'))
limit = vm + int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
try:
    batches = data.from_file(Path(sys.argv[2]), 8192, 8, 512, None)   # no token bound: the whole file is read
    said = {"sequences": batches.windows.shape[0], "row": batches.batch_of(1)[0, :4].tolist(),
            "dtype": str(batches.batch_of(1).dtype)}
except WorkloadError as exc:
    said = {"refused": exc.message, "code": exc.exit_code}
said["peak_over_baseline"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps(said))
"""
HEADROOM = 400 << 20


def _read_limited(path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run([sys.executable, "-c", LIMITED, str(HEADROOM), str(path)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_100_mb_text_is_held_as_one_byte_a_token(tmp_path):
    """100 MB of text took 1.7 GB as a Python list of ids; a byte-level token is now one byte of a bytearray that the
    windows view, widened to int64 a batch at a time."""
    path = tmp_path / "corpus.txt"
    line = b"the card trains a model on text it did not write\n"
    with open(path, "wb") as f:
        for _ in range(100_000_000 // (len(line) * 10_000)):
            f.write(line * 10_000)
    size = path.stat().st_size
    said = _read_limited(path)
    path.unlink()   # pytest keeps the last runs' folders
    assert said.get("sequences") == size // 513, said
    assert said["row"] == list(b"the ") and said["dtype"] == "torch.int64"
    assert said["peak_over_baseline"] < 250 << 20, said


def test_a_jsonl_line_over_the_cap_is_refused_having_read_no_more_than_the_cap(tmp_path):
    """One 500 MB JSONL line ran out of memory at 5.9 GB; a line is read up to the cap and refused past it."""
    from workloads.finetune.corpus import MAX_LINE_BYTES

    path = tmp_path / "one_line.jsonl"
    with open(path, "wb") as f:
        f.write(b'{"text": "')
        chunk = b"a" * (1 << 20)
        for _ in range(MAX_LINE_BYTES // len(chunk) + 4):
            f.write(chunk)
        f.write(b'"}\n')
    said = _read_limited(path)
    path.unlink()
    assert said.get("code") == 2, said
    assert said["refused"] == (f"--data {path}: line 1 is longer than {MAX_LINE_BYTES >> 20} MiB; a JSONL record "
                               "is one document, not a corpus")
    assert said["peak_over_baseline"] < 2 * MAX_LINE_BYTES + (32 << 20), said


def test_a_run_reads_no_more_of_a_file_than_its_steps_take(tmp_path):
    pytest.importorskip("torch")
    from workloads.finetune import data

    path = tmp_path / "corpus.txt"
    path.write_bytes(b"0123456789abcdef" * (4 << 20))   # 64 MiB
    batches = data.from_file(path, 300, 2, 15, None, tokens_needed=3 * 2 * 16)
    assert batches.windows.shape[0] < 200_000 and "the first" in batches.description   # a block, not the file
    assert batches.batch_of(1)[0].tolist() == list(b"0123456789abcdef")
    assert batches.batch_of(3)[1].tolist() == list(b"0123456789abcdef")


@pytest.mark.parametrize("name, content, said", [
    ("deep.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1 nests deeper than"),
    ("late_nul.txt", b"plain text\n" * 7000 + b"more\x00text\n", "is not text: a NUL byte at byte 77004"),
    ("late_nul.jsonl", b'{"text": "a record"}\n' * 4000 + b'{"text": "b\x00"}\n', "is not text: a NUL byte at"),
    ("late_latin1.txt", b"plain text\n" * 7000 + b"caf\xe9\n", "is not UTF-8 text (byte 77003)"),
    ("bad.jsonl", b'{"text": "a record"}\n\n{"text": \n', "line 3 is not JSON"),   # the file's line, blank ones counted
])
def test_a_data_file_bad_past_its_first_64_kb_is_one_line_and_exit_2(tmp_path, name, content, said):
    """JSONL nested 100,000 deep raised RecursionError; NUL bytes after the 64 KB the argument check reads were trained
    on. The stream checks every byte it reads, before the model is built."""
    pytest.importorskip("torch")
    from workloads.errors import WorkloadError
    from workloads.finetune import data

    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(WorkloadError) as caught:
        data.from_file(path, 300, 2, 15, None)
    assert said in caught.value.message and caught.value.exit_code == 2, caught.value.message


def test_the_workload_refuses_a_late_nul_in_one_line_with_exit_2(tmp_path):
    path = tmp_path / "late_nul.txt"
    path.write_bytes(b"plain text\n" * 7000 + b"\x00")
    ran = _finetune("--data", str(path), "--device", "cpu", "--seq-len", "16", "--amp", "off", "--batch-size", "2",
                    "--steps", "1", "--threads", "1", limit="--as=8000000000")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert "is not text: a NUL byte at byte 77000" in _error(ran)
    assert '"event":"start"' not in ran.stdout   # refused before the model is built and the run starts


def test_a_tokenizer_reads_the_stream_in_blocks_as_it_read_the_whole_text(tmp_path, monkeypatch):
    """Blocks are cut at line ends and only the first is given the tokenizer's special tokens: the ids are the
    whole text's."""
    tokenizers = pytest.importorskip("tokenizers")
    pytest.importorskip("torch")
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    from workloads.finetune import corpus, data

    words = ["<s>", "[UNK]", "the", "card", "trains", "a", "model", "\n", " "]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(tokenizers.Regex(r"\w+|\n"), behavior="isolated")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    (tmp_path / "w").mkdir()
    tok.save(str(tmp_path / "w" / "tokenizer.json"))
    text = "the card trains a model\n" * 3000 + "a model"
    (tmp_path / "corpus.txt").write_text(text)
    (tmp_path / "records.jsonl").write_text("".join(json.dumps({"text": line}) + "\n" for line in text.split("\n")))
    whole = tok.encode(text).ids
    monkeypatch.setattr(corpus, "BLOCK_BYTES", 1000)   # many blocks
    for name in ("corpus.txt", "records.jsonl"):
        batches = data.from_file(tmp_path / name, len(words), 1, len(whole) - 1, tmp_path / "w")
        assert batches.windows.shape[0] == 1 and batches.batch_of(1)[0].tolist() == whole, name
