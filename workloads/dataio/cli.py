"""Data IO: is the data pipeline or the card the bottleneck on this instance?

Run as ``python -m workloads.dataio --data DIR`` or ``--make-data N`` (``cardbench run dataio``). Five parts,
each a ``step`` event (part k of 5) and a line in the log:

1. survey (:mod:`~workloads.dataio.survey`): where DIR lives (filesystem, mount, free space), its files;
2. storage (:mod:`~workloads.dataio.storage`): sequential MB/s and files/s, cold then warm;
3. decode (:mod:`~workloads.dataio.decode`): JPEG decode per core (PIL, torchvision, the device), transforms;
4. loader (:mod:`~workloads.dataio.loader`): the DataLoader sweep over num_workers;
5. verdict (:mod:`~workloads.dataio.verdict`) against what the card consumes (:mod:`~workloads.dataio.consumer`).

Nothing is written in DIR. ``--make-data N`` writes N JPEGs into a temporary folder
(:mod:`~workloads.dataio.makedata`), removed when the run ends, however it ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workloads import exit_codes
from workloads.child.harness import (
    ArgumentParser,
    Emitter,
    WorkloadError,
    arguments_checked,
    log,
    positive_float,
    positive_int,
)
from workloads.dataio import consumer, mounts, storage, survey
from workloads.cpus import usable_cpus
from workloads.dataio.images import OVERSIZE
from workloads.dataio.spec import PARTS
from workloads.safe_text import file_name
from workloads.dataio.result_record import DataioResult

WORKLOAD = "dataio"
MAX_MADE = 100_000
DEFAULT_MADE = 256     # no --data and no --make-data: this many made JPEGs
MIN_SIZE, MAX_SIZE = 32, 1024   # ResNet-50's --image-size bounds (it downsamples 32x; the workbench's max)


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Storage, JPEG decode and DataLoader throughput against what "
                                                  "the card consumes: which one is the bottleneck.")
    p.add_argument("--data", default=None, metavar="DIR", help="the data set's folder (read only)")
    p.add_argument("--make-data", type=positive_int, default=None, metavar="N",
                   help="no data set: make N ImageNet-sized JPEGs in a temporary folder, removed afterwards "
                        f"(the default, with N={DEFAULT_MADE}, when --data is not given)")
    p.add_argument("--make-data-in", default=None, metavar="DIR",
                   help="where the made data's temporary folder goes (default: the system's temporary folder; "
                        "/dev/shm for memory)")
    p.add_argument("--seconds", type=positive_float, default=2.0, metavar="S",
                   help="time cap of each timed measurement (default 2)")
    p.add_argument("--batch-size", type=positive_int, default=64, metavar="N", help="loader batch (default 64)")
    p.add_argument("--max-workers", type=positive_int, default=None, metavar="N",
                   help="the sweep's most workers (default: the cores this process may use)")
    p.add_argument("--consumer-rate", type=positive_float, default=None, metavar="IMAGES_PER_S",
                   help="what the card trains at (default: a ResNet-50 run in the runs dir, else the rated bound)")
    p.add_argument("--image-size", type=positive_int, default=None, metavar="PX",
                   help="the training crop the loader makes (default: the size of the ResNet-50 run the card's rate "
                        "is from, else 224); a card's rate measured at another size is scaled by pixels")
    p.add_argument("--runs-dir", default=None, metavar="DIR",
                   help="where to look for a ResNet-50 run (default: the runs dir of this run)")
    p.add_argument("--device", default="auto", metavar="DEVICE", help="cuda, cuda:1, cpu... (default: first accelerator)")
    return p


def parse(argv: Sequence[str]) -> Any:
    args = build_parser().parse_args(list(argv))
    if args.data is not None and args.make_data is not None:
        raise WorkloadError("give --data DIR or --make-data N, not both",
                            hint="`cardbench run dataio --data /path/to/images`, or `--make-data 256` to try it")
    if args.data is None and args.make_data is None:
        args.make_data = DEFAULT_MADE
    if args.make_data is not None and args.make_data > MAX_MADE:
        raise WorkloadError(f"--make-data {args.make_data}: at most {MAX_MADE:,}")
    if args.image_size is not None and not MIN_SIZE <= args.image_size <= MAX_SIZE:
        raise WorkloadError(f"--image-size {args.image_size}: from {MIN_SIZE} to {MAX_SIZE} px")
    if args.data is not None:
        try:
            survey.check_root(args.data)
        except survey.NoData as exc:
            raise WorkloadError(str(exc), hint="--data takes a folder of images (any layout)") from None
    return args


def main(em: Emitter, argv: Sequence[str]) -> int:
    args = parse(argv)
    arguments_checked()
    from workloads.dataio import makedata

    made = None
    if args.make_data:
        log(f"dataio: making {args.make_data} JPEG(s) in a temporary folder")
        try:
            made = makedata.make(args.make_data, args.make_data_in)
        except makedata.NoRoom as exc:
            raise WorkloadError(str(exc), hint="--make-data-in DIR on a disk with room", bad_input=False) from None
    try:
        return _run(em, args, str(made) if made else args.data, made is not None)
    finally:
        if made is not None:
            makedata.remove(made)
            log(f"dataio: the made data ({made}) is removed")


def _run(em: Emitter, args: Any, root: str, made: bool) -> int:
    from workloads.child import device as dev
    from workloads.dataio import decode, loader, table
    from workloads.dataio.words import verdict_words

    device = dev.resolve(args.device)
    device_name = dev.name(device)
    total = len(PARTS)
    config = {"data": None if made else root, "make_data": args.make_data, "seconds": args.seconds,
              "batch_size": args.batch_size, "max_workers": args.max_workers, "device": str(device),
              "total_steps": total}
    em.start(WORKLOAD, config, device_name, dev.versions())
    metrics: dict[str, Any] = {"data_made": args.make_data, "device": device_name}

    def part(index: int, name: str, line: str, **figures: Any) -> None:
        log(f"dataio: part {index}/{total} done: {line}")
        em.step(index, total_steps=total, counts="parts", part=name, label=name,
                figures={k: v for k, v in figures.items() if isinstance(v, (int, float))})

    try:
        s = survey.survey(root)
    except survey.NoData as exc:
        raise WorkloadError(str(exc), hint="--data takes a folder of images (any layout)") from None
    metrics.update(table.survey_metrics(s))
    part(1, "survey", survey.describe(s), images=s.images)
    _warn_skipped(em, s, root)

    paths = [p for p, _ in s.sample]
    kind = s.mount.kind if s.mount else None
    # the card's rate first: its run's image size is the loader's, so both sides count images of one size
    card = consumer.find(device_name, args.consumer_rate, consumer.runs_dir(args.runs_dir))
    size = metrics["image_size"] = args.image_size or (card and card.image_size) or decode.IMAGE_SIZE
    read = storage.measure(s.sample, kind, args.seconds)
    metrics.update(read)
    part(2, "storage", storage.describe(read), **{k: v for k, v in read.items() if k.endswith(("_mb_s", "_files_s"))})

    decoded, problems = decode.measure(paths, device, args.seconds, size)
    metrics.update(decoded)
    metrics.update({f"bad_{k}": n for k, n in problems.counts.items()})
    part(3, "decode", decode.describe(decoded), **decoded)
    if problems.counts:
        em.warning(f"images skipped: {problems.describe()}", code="images_skipped")
        log(f"dataio: images skipped: {problems.describe()}")

    rows = loader.sweep(paths, device, args.seconds, args.batch_size, args.max_workers, size,
                        on_setting=lambda r: log(f"dataio: loader {table.sweep_line(r)}"))
    metrics["loader"] = rows
    metrics["cores"] = usable_cpus()
    h2d = [r["h2d_gb_s"] for r in rows if isinstance(r.get("h2d_gb_s"), (int, float))]
    metrics["h2d_gb_s"] = max(h2d) if h2d else None
    best = max((r["images_per_s"] for r in rows if r.get("images_per_s")), default=None)
    part(4, "loader", f"loader: best {best or 0:,.0f} images/s over {len(rows)} setting(s)", best_images_per_s=best)

    metrics.update(_verdict(rows, card, size, read.get("cold_files_s"), kind, s.bytes_seen))
    part(5, "verdict", f"verdict: {verdict_words(metrics)}", loader_images_per_s=metrics["loader_images_per_s"])
    for line in table.terminal_lines(metrics):
        log(line)
    em.result(DataioResult.of(metrics))
    return exit_codes.OK


def _warn_skipped(em: Emitter, s: Any, root: str) -> None:
    """A warning for each kind of file the survey skipped (a ``survey.Survey``)."""
    for what, n in (("unreadable file(s) or folder(s)", s.unreadable), ("symbolic link loop(s)", s.loops),
                    (f"file(s) {OVERSIZE}", s.oversize)):
        if n:
            em.warning(f"{n} {what} skipped in {file_name(root)} (e.g. {', '.join(s.examples[:3])})",
                       code="data_skipped")


def _verdict(rows: list[dict[str, Any]], card: consumer.Consumer | None, size: int, cold_files_s: float | None,
             kind: str | None, data_bytes: int) -> dict[str, Any]:
    """The verdict's figures: what it is, the workers to use, the card's rate it read against, a folder with room."""
    from workloads.dataio import verdict

    judged = verdict.judge(rows, card.at(size) if card else None, cold_files_s, kind)
    out = {"verdict": judged.kind, "loader_workers": judged.workers, "loader_images_per_s": judged.images_per_s,
           **_card_metrics(card, size)}
    if judged.kind == verdict.STORAGE and kind not in ("local", "memory"):
        room = mounts.local_room(data_bytes)
        out.update({"room_where": room[0], "room_free_bytes": room[1]} if room else {})
    return out


def _card_metrics(card: consumer.Consumer | None, size: int) -> dict[str, Any]:
    """The card's rate at the loader's image size, where it is from, and as measured when it was scaled."""
    if card is None:
        return {"consumer_images_per_s": None}
    scaled = bool(card.image_size) and card.image_size != size
    given = {"consumer_run": card.run, "consumer_image_size": card.image_size, "consumer_steps": card.steps,
             "consumer_measured_images_per_s": card.rate if scaled else None}
    # what a source does not have is left out, not said as N/A (not measured)
    return {"consumer_images_per_s": round(card.at(size), 2), "consumer_basis": card.basis,
            **{k: v for k, v in given.items() if v is not None}}
