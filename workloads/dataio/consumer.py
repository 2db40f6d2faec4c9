"""What the card consumes: the images/s the loader must keep up with. Torch-free.

``--consumer-rate`` when given (what the user says outranks what is found). Else a ResNet-50 run on this
machine (the runs dir) on the same kind of card: its compute-only images/s (``images_per_s_compute``, the
step's time less its wait for data), else its median images/s, with the image size that run used. Else the
card's rated bound: its dense bf16 peak over the 24.5 GFLOP one training image costs at 224 px
(workloads/vision/resnet50_flops.py; rated figures from workloads/facts/rated.csv), which no training reaches: an
upper bound, said as one. The loader is compared with the card at one image size (``Consumer.at``).

Reading the runs dir is bounded: each run's config.json is read first (at most 64 KiB), and only a ResNet-50
run's events are opened, from their end (the last 1 MiB holds its result), since a soak's events.jsonl can be
hundreds of MB. Nothing is followed through a link.
"""

from __future__ import annotations

import json
import os
import stat
import statistics
from dataclasses import dataclass
from pathlib import Path

from workloads import protocol
from workloads.facts.rated import rated_peak
from workloads.rundir import CONFIG, EVENTS
from workloads.safe_text import file_name
from workloads.vision.resnet50_flops import TRAIN_GFLOP_PER_IMAGE_224

RESNET50 = "resnet50"
CONFIG_MAX = 64 * 1024
EVENTS_TAIL = 1 << 20
MAX_RUNS = 2000            # run folders looked at, newest first (a run id starts with its UTC time)


# where a rate comes from (the verdict's words for each: workloads/dataio/words.py)
COMPUTE, MEDIAN, STEPS, GIVEN, RATED = "compute-only", "median", "last steps", "given", "rated"
RATED_SIZE = 224       # the rated bound is per 224 px image (TRAIN_GFLOP_PER_IMAGE_224)


@dataclass(frozen=True)
class Consumer:
    rate: float            # images/s at image_size
    basis: str             # COMPUTE, MEDIAN, STEPS (a run's), GIVEN (--consumer-rate) or RATED (the card's bound)
    run: str | None = None          # the ResNet-50 run's id, or the rated card's name
    image_size: int | None = None   # px the rate was measured at; None: not known (--consumer-rate)
    steps: int | None = None        # STEPS: the steps the median is over

    @property
    def bound(self) -> bool:
        """An upper bound (the rated one), not a measurement."""
        return self.basis == RATED

    def at(self, size: int) -> float:
        """The rate at ``size`` px: scaled by pixels from the size it was measured at (ResNet-50's FLOPs per image
        grow with its pixels); a rate of no known size is taken as at ``size``."""
        if not self.image_size or self.image_size == size:
            return self.rate
        return self.rate * (self.image_size / size) ** 2


def card_of(device_name: str) -> str:
    """'cuda:0 (NVIDIA H200)' -> 'NVIDIA H200'; 'cpu (x86_64, 2 threads)' -> 'cpu'."""
    head, _, rest = device_name.partition(" (")
    if head == "cpu" or not rest:
        return head
    return rest.rstrip(")")


def runs_dir(given: str | None = None) -> Path:
    """--runs-dir, else the runs dir this run is recorded in, else $CARDBENCH_RUNS_DIR, else ./cardbench-runs."""
    if given:
        return Path(given)
    here = os.environ.get(protocol.RUN_DIR_ENV)
    if here:
        return Path(here).parent
    return Path(os.environ.get("CARDBENCH_RUNS_DIR") or "cardbench-runs")


def _read_bounded(path: Path, limit: int, tail: bool = False) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (not tail and st.st_size > limit):
            return None
        if tail and st.st_size > limit:
            os.lseek(fd, st.st_size - limit, os.SEEK_SET)
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _events(tail: bytes) -> list[dict]:
    """The events decoded from the tail of an events.jsonl (a torn first line, or any bad one, is skipped)."""
    out = []
    for line in tail.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def _result_of(events: list[dict]) -> dict | None:
    """The last result event's metrics."""
    for event in reversed(events):
        if event.get("event") == "result" and isinstance(event.get("metrics"), dict):
            return event["metrics"]
    return None


def _steps_rate(events: list[dict]) -> tuple[float, int] | None:
    """(median compute-only images/s, steps) of a run that ended without a result (stopped at the suite's budget):
    each step's throughput x step_s / compute_s (its rate less its wait for data), warm-up steps left out."""
    rates = []
    for e in events:
        if e.get("event") != "step" or e.get("warmup") is True:
            continue
        rate, step_s, compute_s = _rate(e.get("throughput")), _rate(e.get("step_s")), _rate(e.get("compute_s"))
        if rate:
            rates.append(rate * step_s / compute_s if step_s and compute_s else rate)
    return (statistics.median(rates), len(rates)) if rates else None


def _rate(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e9:
        return float(value)
    return None


def from_runs(root: Path, device_name: str) -> Consumer | None:
    """The newest ResNet-50 run in ``root`` on the same card with a rate."""
    try:
        names = sorted((e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False)), reverse=True)
    except OSError:
        return None
    card = card_of(device_name)
    for name in names[:MAX_RUNS]:
        raw = _read_bounded(root / name / CONFIG, CONFIG_MAX)
        try:
            config = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            continue
        if not isinstance(config, dict) or config.get("workload") != RESNET50:
            continue
        events = _events(_read_bounded(root / name / EVENTS, EVENTS_TAIL, tail=True) or b"")
        start = next((e for e in events if e.get("event") == "start"), {})
        metrics = _result_of(events) or {}
        if card_of(str(metrics.get("device") or start.get("device") or "")) != card:
            continue
        size = _size(metrics.get("image_size")) or _size((start.get("config") or {}).get("image_size"))
        run = file_name(name, 80)
        for key, basis in (("images_per_s_compute", COMPUTE), ("images_per_s", MEDIAN)):
            rate = _rate(metrics.get(key))
            if rate:
                return Consumer(rate, basis, run, size)
        steps = _steps_rate(events) if not metrics else None
        if steps:
            return Consumer(round(steps[0], 2), STEPS, run, size, steps[1])
    return None


def _size(value: object) -> int | None:
    """An image size in px from a result or a config (a figure may come back as 64.0)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 100_000 \
            and float(value).is_integer():
        return int(value)
    return None


def rated_bound(device_name: str) -> Consumer | None:
    """The card's rated bf16 peak / ResNet-50's training FLOPs per image: what no training exceeds."""
    figure = rated_peak(device_name, "bf16")
    if figure is None:
        return None
    rate = figure.value * 1000 / TRAIN_GFLOP_PER_IMAGE_224
    return Consumer(round(rate, 1), RATED, figure.device, RATED_SIZE)


def find(device_name: str, given_rate: float | None, root: Path) -> Consumer | None:
    if given_rate:
        return Consumer(given_rate, GIVEN)
    return from_runs(root, device_name) or rated_bound(device_name)
