"""Hugging Face Trainer's log lines: the dict it prints every `logging_steps`, and its closing summary.

`{'loss': 4.6561, 'grad_norm': 15.09, 'learning_rate': 4.14e-07, 'epoch': 1.63}` (newer versions add
`'step': 9000` and may print the values as strings: `{'loss': '3.41', ..., 'epoch': '1'}`), evaluation
dicts (`eval_loss`, `eval_runtime`...) and, at the end, `{'train_runtime': 116.19,
'train_samples_per_second': 6.885, 'train_steps_per_second': 1.721, 'train_loss': 2.82, 'epoch': 0.15}`.
The Trainer's `loss` is the mean over the steps since its previous log line. Its step count comes from
its tqdm bar (read by :mod:`~workloads.command.parsers.tqdm`) or from `'step'` where the dict has it.
"""

from __future__ import annotations

import ast
import re

from workloads.command.parsers.reading import EVAL, SUMMARY, TRAIN, Reading, to_number
from workloads.safe_text import one_line

SOURCE = "hf_trainer"
_LONGEST = 20_000
_KEY_CHARS, _KEYS = 100, 64   # the Trainer's keys are short names, a dozen at most; they end up in the result
_BARE = re.compile(r"(?<=[:\[,]\s)-?(?:nan|inf)(?=[,}\]])|(?<=[:\[,])-?(?:nan|inf)(?=[,}\]])")  # a dict line longer than this is not a Trainer log line: not worth evaluating


def _dict(line: str) -> dict | None:
    text = line.strip()
    # a dict printed with `print` while a bar was on the line is glued to the bar's text: `... 1.2it/s]{'loss': ...}`
    text = text[text.find("{'"):] if not text.startswith("{") and "{'" in text else text
    if not (text.startswith("{") and text.endswith("}")) or len(text) > _LONGEST:
        return None
    # a failing run prints bare nan and inf (`'grad_norm': nan`), which literal_eval refuses: read them as the
    # strings to_number turns into floats
    text = _BARE.sub(lambda m: f"'{m.group(0)}'", text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and all(isinstance(k, str) for k in value) else None


def parse(line: str) -> Reading | None:
    data = _dict(line)
    if data is None:
        return None
    # a key is a string literal, so '\\x1b]0;...' in the printed text is a real escape once read: only plain names
    # are figures (they reach the result, the terminal and the report)
    values = {k: n for k, n in ((k, to_number(v)) for k, v in data.items())
              if n is not None and len(k) <= _KEY_CHARS and one_line(k) == k}
    values = dict(list(values.items())[:_KEYS])
    step = values.get("step")
    count = int(step) if step is not None and step.is_integer() else None
    if "train_runtime" in values:
        return Reading(source=SOURCE, kind=SUMMARY, values=values)
    if any(k.startswith("eval_") for k in values):
        return Reading(source=SOURCE, kind=EVAL, values=values)
    if "loss" not in values:
        return None
    return Reading(source=SOURCE, kind=TRAIN, count=count, loss=values["loss"], values=values)
