"""Issue 37's llm items: a config.json and arguments someone else wrote, refused in one line with exit 2.

- 8: a shape whose module objects alone outgrow the host (10^6 layers of width 2) is refused by an estimate that
  counts them, before torch is imported or anything is built;
- 9: ``--sweep`` counts its cells arithmetically and caps them; a refusal shows an over-long argument's start
  and length, not the whole argument;
- 15: config.json numbers that are not numbers, not finite, out of range, or describe a meaningless rotary, through
  the command line (the reader itself: tests/workloads/models/llama/test_llama_config.py).

The memory cases run the real entry point in a child under an address-space limit, so a regression fails fast
with MemoryError instead of taking the machine's memory.
"""

import json
import os
import resource
import subprocess
import sys
import time

from llama_checkpoints import write_config
from paths import REPO

from workloads.llm import plan
from workloads.protocol import CHECK_ARGS_ENV

# the address space a refused child may take: a torch-free argument check needs ~60 MB; building the modules
# of the million-layer config or the cross product of the sweep's lists needs tens of GB
CHILD_MEMORY = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def _llm(*args, check=True, timeout=60):
    """`python -m workloads.llm` in a child under CHILD_MEMORY; ``check``: as `cardbench run llm` checks first."""
    env = {**os.environ, **({CHECK_ARGS_ENV: "cardbench run llm"} if check else {})}
    if not check:
        env.pop(CHECK_ARGS_ENV, None)
    return subprocess.run([sys.executable, "-m", "workloads.llm", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout, env=env, cwd=REPO, preexec_fn=_limit_memory)


def _one_line_exit_2(out, said):
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert said in out.stderr, out.stderr


# item 8 ------------------------------------------------------------------------------------------------------

def test_a_million_layers_is_refused_by_the_module_estimate_before_anything_is_built(tmp_path):
    deep = write_config(tmp_path, vocab_size=2, hidden_size=2, intermediate_size=2, num_hidden_layers=10**6,
                   num_attention_heads=1, num_key_value_heads=1)
    started = time.monotonic()
    out = _llm("--weights", str(deep), "--fit-only")
    _one_line_exit_2(out, f"{deep / 'config.json'}: 1,000,000 layers are about ")
    assert "GiB of module objects before any weight; the host has " in out.stderr
    # the run itself, not only the check: it stops before torch (whose import alone outgrows this limit), its one
    # error event the refusal, no start event, exit 2
    out = _llm("--weights", str(deep), "--device", "cpu", "--input-len", "1", "--output-len", "1",
               "--pp", "0", "--tg", "0", check=False)
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert [e["event"] for e in events] == ["error", "end"]
    assert "1,000,000 layers are about " in events[0]["message"]
    assert time.monotonic() - started < 10


# item 9 ------------------------------------------------------------------------------------------------------

def _values(n, start=1):
    return ",".join(str(i) for i in range(start, start + n))


def test_a_sweep_of_billions_of_cells_is_counted_and_refused_with_its_cap():
    many = _values(2063)  # 2063^3 = 8.8 x 10^9 cells
    started = time.monotonic()
    # counted, the refusal takes well under a second; built, the cells took 40 s to reach this limit
    out = _llm("--sweep", "--input-len", many, "--output-len", many, "--batch-size", many, timeout=10)
    _one_line_exit_2(out, f"--sweep asks for 2,063 x 2,063 x 2,063 = 8,780,064,047 cells; at most {plan.MAX_CELLS:,}")
    assert time.monotonic() - started < 10
    assert len(out.stderr) < 400


def test_a_sweep_at_the_cap_passes_and_repeated_values_count_once():
    # 1,000 values of one, 30 of input and output, batch 1: 900 cells, under the cap
    out = _llm("--sweep", "--input-len", _values(30), "--output-len", _values(30), "--batch-size", "1," * 999 + "1")
    assert out.returncode == 0 and out.stderr == "", out.stderr


def test_a_refusal_shows_a_long_arguments_start_and_length_not_the_argument():
    long = _values(20000)  # ~108 KB, under Linux's 128 KB for one argument
    out = _llm("--input-len", long)
    _one_line_exit_2(out, "--input-len 1,2,3,4,5")
    assert f"({len(long):,} characters)" in out.stderr and len(out.stderr) < 400
    out = _llm("--sweep", "--input-len", long + ",0")
    _one_line_exit_2(out, f"({len(long) + 2:,} characters)")
    assert "each value must be a whole number of 1 or more" in out.stderr and len(out.stderr) < 400
    out = _llm("--pp", "9" * 100_000)
    _one_line_exit_2(out, "(100,000 characters)")
    assert len(out.stderr) < 400


# item 15 -----------------------------------------------------------------------------------------------------

def test_a_bad_config_value_through_the_cli_is_one_line_and_exit_2(tmp_path):
    write_config(tmp_path, rope_theta=10**400)
    out = _llm("--weights", str(tmp_path))
    _one_line_exit_2(out, f"{tmp_path / 'config.json'}: rope_theta is 1000000000")
    assert "(401 characters)" in out.stderr
