#!/usr/bin/env bash
# The GPU acceptance run in one command (at most 12 minutes on a GPU): the doctor, NVML fields, the device table's
# CUDA row (bench/device_row.py: synchronise, peak memory reset and reading, graph capture, events), microbench,
# ResNet-50 bf16 channels-last 224 px, generation (eager / CUDA graphs / compile) against transformers,
# llama-bench pp2048 / tg128 of Llama-3.1-8B bf16 at depth 0 and 4096 against the bandwidth and peak bounds, opscan,
# an 8B-class LoRA fine-tune in bf16 at 2048 tokens (MFU against the rated bf16 peak).
# Prints ONE JSON object of figures and goals on stdout; progress on stderr. Options: see bench/gpu_acceptance.py
# (--cpu-scale tries it on a machine without a GPU). Uses the checkout's .venv when there is one.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  if [[ -x "$here/.venv/bin/python" ]]; then python="$here/.venv/bin/python"; else python="python3"; fi
fi
exec "$python" "$here/bench/gpu_acceptance.py" "$@"
