"""`cardbench run serve` against a real OpenAI-compatible server: `transformers serve` on this machine's CPU,
serving a tiny Qwen2 checkpoint built on the spot (random weights; a byte-level BPE tokenizer trained here on the
workload's own prompt words, so a synthetic prompt of N words is N tokens; ChatML chat template, as Qwen2's).

Requires: fastapi uvicorn openai transformers accelerate (`pip install -e '.[serve]'`: transformers' `serving`
extra less torch), and torch (the torch extra, or the image's own). The script names what is missing in one line.

    python bench/serve_real_server.py [--concurrency 1,4] [--requests 8] [--input-len 32] [--output-len 16]
                                      [--launch-timeout 300]

It runs the workload as a user does, through `cardbench run serve --launch 'transformers serve DIR ...'`, once per
endpoint (/v1/completions, then /v1/chat/completions), and prints each sweep's table and how long the server took
to answer; when the server does not come up, cardbench's error and the server's last lines (its output in the
run's run.log). Nothing is downloaded; the checkpoint and the runs go to a temporary directory.

What this server does that the test server does not (each met by the client): it refuses ``ignore_eos`` with HTTP
422 (FastAPI's validation), so the sweep asks again without it and says so; its streams end without ``data:
[DONE]``; its chat stream opens with a role-only chunk and may hold several tokens in one chunk (its detokenizer
waits for printable text), so the usage field is what counts the tokens; /v1/models lists the model by its path.
Without --continuous-batching it answers one request at a time: TTFT grows with the concurrency.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workloads.serve.load import WORDS  # noqa: E402
from workloads.serve.table import COLUMNS, cell  # noqa: E402

# what `transformers serve` imports (transformers' `serving` extra, torch apart); pyproject's `serve` extra
SERVER_MODULES = ("fastapi", "uvicorn", "openai", "transformers", "accelerate")
SERVER_LINES = 20   # the server's last lines shown when it did not come up (a traceback's end)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_checkpoint(directory: Path) -> None:
    """A 2-layer Qwen2 (hidden 64, GQA 4:2; Qwen2Config's fields, transformers/models/qwen2) and its tokenizer."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)   # GPT-2's and Qwen2's byte-level BPE
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=SPECIALS[:1], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    # every prompt word (and number) merged into one token with its leading space
    tok.train_from_iterator([" " + " ".join(WORDS)] * 20 + [" " + " ".join(map(str, range(1000)))] * 5, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=SPECIALS[0], pad_token=SPECIALS[0])
    fast.add_special_tokens({"additional_special_tokens": SPECIALS[1:]})
    fast.chat_template = CHATML
    fast.save_pretrained(directory)
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0, tie_word_embeddings=True)
    Qwen2ForCausalLM(config).save_pretrained(directory)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def transformers_serve(model: Path, port: int) -> str:
    return f"transformers serve {model} --host 127.0.0.1 --port {port} --device cpu"


def sweep(launch: str, port: int, runs: Path, endpoint: str, args: argparse.Namespace) -> tuple[dict, float]:
    """`cardbench run serve --launch LAUNCH` on one endpoint: its result and seconds; exits saying why it failed."""
    argv = [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))", "run",
            "--runs-dir", str(runs), "--json", "serve", "--launch", launch,
            "--url", f"http://127.0.0.1:{port}/v1", "--endpoint", endpoint, "--concurrency", args.concurrency,
            "--requests", str(args.requests), "--input-len", str(args.input_len), "--output-len",
            str(args.output_len), "--launch-timeout", str(args.launch_timeout)]
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=args.launch_timeout + 600, cwd=ROOT)
    except subprocess.TimeoutExpired:
        sys.exit(failure(endpoint, f"did not end within {args.launch_timeout + 600} s", "", runs))
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(failure(endpoint, f"exited {done.returncode}", done.stderr, runs))
    return json.loads(done.stdout), took


def failure(endpoint: str, how: str, stderr: str, runs: Path) -> str:
    """cardbench's error line, then the server's last lines: why it did not come up is in them (an ImportError, a
    model that failed to load), not in cardbench's last line ("end: failed")."""
    lines = stderr.strip().splitlines()
    said = [line for line in lines if line.startswith("cardbench: error:")] or lines[-1:] or ["(no output)"]
    text = f"serve_real_server: cardbench run serve --endpoint {endpoint} {how}: {said[-1]}"
    tail = server_tail(runs)
    if tail:
        text += f"\nthe server's last {len(tail)} lines (run.log):\n" + "\n".join(f"  {line}" for line in tail)
    return text


def server_tail(runs: Path, count: int = SERVER_LINES) -> list[str]:
    """The last ``count`` lines the launched server printed, from the newest run's run.log (its ``[server]`` lines)."""
    logs = sorted(runs.glob("*/run.log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return []
    text = logs[-1].read_text(encoding="utf-8", errors="replace")
    return [line.split("] [server] ", 1)[1] for line in text.splitlines() if "] [server] " in line][-count:]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--concurrency", default="1,4")
    p.add_argument("--requests", type=int, default=8)
    p.add_argument("--input-len", type=int, default=32)
    p.add_argument("--output-len", type=int, default=16)
    p.add_argument("--launch-timeout", type=int, default=300, help="seconds the server has to answer")
    args = p.parse_args()
    missing = [m for m in (*SERVER_MODULES, "torch") if importlib.util.find_spec(m) is None]
    if missing:
        sys.exit(f"serve_real_server: missing {', '.join(missing)}: transformers serve needs "
                 f"{', '.join(SERVER_MODULES)} (pip install -e '.[serve]') and torch (the torch extra, or the "
                 "image's own)")
    with tempfile.TemporaryDirectory(prefix="serve-real-") as tmp:
        model = Path(tmp) / "tiny-qwen2"
        build_checkpoint(model)
        for endpoint in ("completions", "chat"):
            port = free_port()
            result, took = sweep(transformers_serve(model, port), port, Path(tmp) / "runs", endpoint, args)
            m = result.get("metrics", result)
            print(f"\n{m.get('endpoint')} against transformers serve ({m.get('served_model')}), {took:.0f} s in all "
                  f"(server start included); output tokens from {m.get('tokens_from')}; notes: "
                  + " | ".join(m.get("notes") or []))
            print(" | ".join(label.en for _, label in COLUMNS[:12]))
            for row in m.get("levels") or []:
                print(" | ".join(cell(row, key) for key, _ in COLUMNS[:12]))


if __name__ == "__main__":
    main()
