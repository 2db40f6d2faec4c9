"""PyTorch Lightning's progress bar (TQDMProgressBar): a tqdm bar named `Epoch N`.

`Epoch 0:  22%|██▏       | 4/18 [00:17<01:02,  4.47s/it, loss=9.926, v_num=193315]`: the count is the
batch within the epoch (in older versions the epoch's bar also counts its validation batches), the
postfix carries the logged figures (`loss=` in 1.x, `train_loss=` from `self.log(..., prog_bar=True)`).
`Validation DataLoader 0`, `Sanity Checking`, `Testing` and `Predicting` bars are evaluation, never steps.
Lightning prints a new count first and its postfix on the next redraw, so the loss that goes with a
count is the last one printed at that count (the tracker keeps a step open until its count moves on).
"""

from __future__ import annotations

import re
from dataclasses import replace

from workloads.command.parsers import tqdm
from workloads.command.parsers.reading import EVAL, Reading

SOURCE = "lightning"
_EPOCH = re.compile(r"^Epoch (\d+)$")
_EVAL = re.compile(r"^(Validation|Sanity Checking|Testing|Predicting)( DataLoader \d+)?$")


def parse(line: str) -> Reading | None:
    found = tqdm.bar(line)
    if found is None:
        return None
    desc, reading = found
    epoch = _EPOCH.match(desc)
    if epoch:
        # one bar per epoch, whatever its total (the last epoch's can differ): the bar is "Epoch"
        return replace(reading, source=SOURCE, epoch=int(epoch.group(1)), bar="lightning epoch")
    if _EVAL.match(desc):
        return replace(reading, source=SOURCE, kind=EVAL)
    return None
