"""Microbenchmarks: what the card really delivers (GEMM, memory, host link, launch, bit-for-bit stability), each
figure beside the rated one its makers publish.

Run as ``python -m workloads.microbench [options]`` (or ``cardbench run microbench``).
Parts, each selectable with ``--only``: ``gemm`` (:mod:`~workloads.microbench.gemm`),
``memory`` (:mod:`~workloads.microbench.memory`), ``transfer`` (host <-> device with the
PCIe link, :mod:`~workloads.microbench.transfer`, :mod:`~workloads.microbench.link`),
``launch`` (:mod:`~workloads.microbench.launch`), ``burn`` (silent-data-corruption check,
:mod:`~workloads.microbench.burn`) and ``collectives`` (across the visible devices
through torchrun, :mod:`workloads.microbench.collectives`, when this build has it).

Events: ``start``; a ``step`` per part done (part k of N, with its figures); a
``warning`` when the burn check fails; one ``result`` whose ``figures`` list each
figure with the rated one and measured / rated (:mod:`~workloads.microbench.figures`),
also flat (``gemm_bf16``, ``gemm_bf16_rated``, ``gemm_bf16_of_rated``...), and whose
``parts`` hold each part's own measurements (every GEMM size, every transfer size...). A burn
check that FAILs ends the run failed (exit 1), after its result.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import traceback
from types import ModuleType
from typing import Any, Sequence

from workloads import exit_codes
from workloads.catalogue import say
from workloads.errors import first_line
from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, arguments_checked, log,
                                     positive_float, positive_int)
from workloads.facts import rated
from workloads.facts.formatting import format_bytes
from workloads.microbench.spec import PARTS
from workloads.microbench.result_record import MicrobenchResult

WORKLOAD = "microbench"
COLLECTIVES = "workloads.microbench.collectives"
DEFAULT_MAX_SIZE = {"cpu": 2048, "device": 16384}
DEFAULT_BURN_SIZE = {"cpu": 512, "device": 8192}
TRANSFER_MAX_BYTES = 256 * 2**20


def build_parser(collectives: ModuleType | None = None, add_help: bool = True) -> ArgumentParser:
    from workloads.microbench.gemm import DTYPES

    p = ArgumentParser(prog=WORKLOAD, add_help=add_help,
                       description="GEMM, memory, host link, launch latency and a bit-for-bit check, against the "
                                   "device's rated figures.")
    p.add_argument("--only", default=None, metavar="PARTS",
                   help=f"parts to run, comma-separated: {','.join(PARTS)} (default: all; collectives when this "
                        "build has them)")
    p.add_argument("--dtypes", default=None, metavar="LIST",
                   help=f"GEMM dtypes: {','.join(DTYPES)} (default: all; one the device cannot run is skipped with "
                        "the reason)")
    p.add_argument("--max-size", type=positive_int, default=None, metavar="N",
                   help=f"largest GEMM side (default {DEFAULT_MAX_SIZE['device']}, on the CPU "
                        f"{DEFAULT_MAX_SIZE['cpu']}); the sweep stops earlier where the figure stops rising")
    p.add_argument("--max-call-s", type=positive_float, default=1.0, metavar="S",
                   help="the GEMM sweep stops after a size whose one call takes longer (default 1)")
    p.add_argument("--buffer-mib", type=positive_int, default=None, metavar="MIB",
                   help="memory buffer and largest host transfer, MiB (default: 8x the last-level cache, at least "
                        "1 GiB on a device and 256 MiB on the CPU; transfers up to 256 MiB)")
    p.add_argument("--burn-seconds", type=positive_float, default=30.0, metavar="S",
                   help="how long the bit-for-bit GEMM check repeats (default 30)")
    p.add_argument("--burn-size", type=positive_int, default=None, metavar="N",
                   help=f"side of the check's fp32 GEMM (default {DEFAULT_BURN_SIZE['device']}, on the CPU "
                        f"{DEFAULT_BURN_SIZE['cpu']})")
    p.add_argument("--device", default="auto", metavar="DEVICE", help="cuda, cuda:1, cpu... (default: first accelerator)")
    if collectives is not None:
        collectives.add_collective_arguments(p)
    return p


def _listed(text: str | None, allowed: Sequence[str], flag: str) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in allowed]
    if bad or not items:
        raise WorkloadError(f"{flag}: unknown {', '.join(bad) or '(none given)'}", hint=f"use some of {','.join(allowed)}")
    return list(dict.fromkeys(items))


def collectives_module() -> ModuleType | None:
    """The collectives part's module when this build has it (another package writes it), else None."""
    if importlib.util.find_spec(COLLECTIVES) is None:
        return None
    return importlib.import_module(COLLECTIVES)


def parse(argv: Sequence[str]) -> tuple[Any, list[str], ModuleType | None]:
    """(options, parts, collectives module): collectives' own options are known only when it is selected."""
    from workloads.microbench.gemm import DTYPES

    first, _ = build_parser(add_help=False).parse_known_args(list(argv))
    asked = _listed(first.only, PARTS, "--only")
    module = collectives_module() if asked is None or "collectives" in asked else None
    if asked is not None and "collectives" in asked and module is None:
        raise WorkloadError("--only collectives: the collectives part is not available in this build "
                            f"({COLLECTIVES} is missing)", hint="leave collectives out of --only")
    args = build_parser(module).parse_args(list(argv))
    args.dtype_list = _listed(args.dtypes, DTYPES, "--dtypes") or list(DTYPES)
    # its options are checked with the others, before anything runs
    args.collective_kwargs = module.collective_kwargs(args) if module is not None else None
    return args, asked or list(PARTS), module


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    # large CPU tensors on 2 MB pages, as the generate workload has them (read at the first one): the memory
    # part streams them, and the bandwidth probe it is compared with reads them alike
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    args, parts, collectives = parse(argv)
    arguments_checked()

    from workloads.child import device as dev
    from workloads.microbench import figures
    from workloads.microbench.table import lines

    device = dev.resolve(args.device)
    kind = "cpu" if device.type == "cpu" else "device"
    max_size = args.max_size or DEFAULT_MAX_SIZE[kind]
    burn_size = args.burn_size or DEFAULT_BURN_SIZE[kind]
    device_name = _device_name(device)
    ratings = None if device.type == "cpu" else rated.lookup(device_name)
    config = {"parts": parts, "dtypes": args.dtype_list, "max_size": max_size, "max_call_s": args.max_call_s,
              "buffer_mib": args.buffer_mib, "burn_seconds": args.burn_seconds, "burn_size": burn_size,
              "device": str(device), "device_name": device_name, "total_steps": len(parts),
              "rated_as": ratings.device if ratings else None}
    emitter.start(WORKLOAD, config, dev.name(device), dev.versions())
    log(f"microbench: {', '.join(parts)} on {dev.name(device)}; rated figures: "
        + (ratings.device if ratings else "none in the table for this device (N/A)"))

    rows: list[dict[str, Any]] = []
    raw: dict[str, Any] = {}
    for index, part in enumerate(parts, start=1):
        log(f"microbench: part {index}/{len(parts)}: {part}")
        try:
            part_rows, raw[part] = _run_part(part, args, device, ratings, max_size, burn_size, collectives)
        except WorkloadError as exc:
            if part == "collectives" and args.only is None:  # not asked for: one device has no collectives to time
                part_rows, raw[part] = _skipped_collectives(exc.message + (f" ({exc.hint})" if exc.hint else ""))
            else:
                part_rows, raw[part] = _failed_part(part, exc)
        except Exception as exc:  # noqa: BLE001 - one part's failure must not lose the others' figures
            part_rows, raw[part] = _failed_part(part, exc)
        rows += part_rows
        log(f"microbench: part {index}/{len(parts)} done: {part}")
        emitter.step(index, total_steps=len(parts), counts="parts", part=part, label=part,
                     figures={r["key"]: r["measured"] for r in part_rows if r["key"]})

    metrics: dict[str, Any] = {"figures": rows, "parts": raw, **figures.flat(rows), "device_name": device_name,
                               "rated_as": ratings.device if ratings else None,
                               "precision": _precisions(raw.get("gemm"))}
    metrics.update(_headline(raw.get("gemm")))
    if ratings is None:
        metrics["rated_note"] = (say("workload.microbench.rated_note.cpu") if device.type == "cpu" else
                                 f"no rated figures in the table for {device_name!r}: N/A")
    for line in lines(rows):
        log(line)
    failed = _verdicts(emitter, raw)
    emitter.result(MicrobenchResult.of(metrics))
    return exit_codes.FAILED if failed else exit_codes.OK


def _failed_part(part: str, exc: Exception) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from workloads.microbench import figures

    if isinstance(exc, WorkloadError):
        said, hint = exc.message, exc.hint
    else:
        traceback.print_exc()  # to run.log: the part's own line says what failed
        said, hint = first_line(exc, typed=True, limit=300), None
    log(f"microbench: {part} failed: {said}" + (f" ({hint})" if hint else ""))
    note = (say("workload.microbench.row.failed_hint", error=said, hint=hint) if hint else
            say("workload.microbench.row.failed", error=said))
    return [figures.row(part, part, None, "", note=note, key=f"{part}_failed")], {"error": said, "hint": hint}


def _verdicts(emitter: Emitter, raw: dict[str, Any]) -> bool:
    """Warnings for what makes the run fail (a part that failed, a burn mismatch, a wrong collective); whether any."""
    failed = False
    for part, result in raw.items():
        if isinstance(result, dict) and result.get("error"):
            failed = True
            emitter.warning(f"{part} failed: {result['error']}", code="part_failed", part=part, hint=result.get("hint"))
    burn = raw.get("burn") or {}
    if burn.get("status") == "FAIL":
        failed = True
        emitter.warning(f"silent data corruption: {burn['mismatched_iterations']} of {burn['iterations']} repeats "
                        f"of the same GEMM differ from the first ({burn['mismatched_elements']} elements)",
                        code="sdc_mismatch")
    wrong = [p for p in (raw.get("collectives") or {}).get("points", []) if not p.get("correct")]
    if wrong:
        failed = True
        emitter.warning(f"collectives: {len(wrong)} result(s) differ from the expected values: "
                        + ", ".join(f"{p['op']} {p['bytes']} B" for p in wrong[:5]), code="collective_wrong")
    return failed


def _run_part(part: str, args: Any, device: Any, ratings: Any, max_size: int, burn_size: int,
              collectives: ModuleType | None) -> tuple[list[dict[str, Any]], Any]:
    from workloads.microbench import figures

    if part == "gemm":
        from workloads.microbench import gemm

        start = 256 if device.type == "cpu" else 1024
        results = [gemm.sweep(d, device, start=min(start, max_size), max_size=max_size, max_call_s=args.max_call_s,
                              on_size=lambda p, d=d: log(f"gemm {d} n={p['n']}: {p['best']:.3g} best, "
                                                         f"{p['median']:.3g} median")).to_dict()
                   for d in args.dtype_list]
        return figures.gemm_rows(results, ratings), results
    if part == "memory":
        from workloads.microbench import memory

        result = memory.measure(device, memory.buffer_bytes(device, _mib(args.buffer_mib)))
        return figures.memory_rows(result, ratings), result
    if part == "transfer":
        return _transfer(args, device)
    if part == "launch":
        from workloads.microbench import launch

        result = launch.measure(device)
        return figures.launch_rows(result), result
    if part == "burn":
        from workloads.microbench.burn import burn

        result = burn(device, args.burn_seconds, burn_size,
                      on_progress=lambda p: log(f"burn: {p['iterations']} iterations, {p['seconds']:.1f} s, "
                                                f"{p['mismatched_iterations']} differing"))
        return figures.burn_rows(result), result
    return _collectives(args, device, collectives)


def _transfer(args: Any, device: Any) -> tuple[list[dict[str, Any]], Any]:
    from workloads.microbench import figures

    if device.type == "cpu":
        reason = say("workload.microbench.skip.cpu_transfer")
        return figures.transfer_rows([], None, reason), {"skipped": reason}
    from workloads.microbench import link, transfer

    max_bytes = min(TRANSFER_MAX_BYTES, _mib(args.buffer_mib) or TRANSFER_MAX_BYTES)
    points = transfer.sweep(device, max_bytes, on_point=lambda p: log(
        f"transfer {p['mode']} {p['direction']} {format_bytes(p['bytes'])}: {p['best_gbps']:.2f} GB/s"))
    found = link.read(link.pci_address(device))
    return figures.transfer_rows(points, found, None), {"points": points, "link": found}


def _collectives(args: Any, device: Any, collectives: ModuleType | None) -> tuple[list[dict[str, Any]], Any]:
    """The one place the collectives part is called (its module is another package's)."""
    from workloads.microbench import figures

    if collectives is None:
        return _skipped_collectives(say("workload.microbench.skip.no_collectives", module=COLLECTIVES))
    points = collectives.measure_collectives(device.type, **args.collective_kwargs)
    return figures.collective_rows(points), {"points": points}


def _skipped_collectives(reason: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from workloads.microbench import figures

    return [figures.row("collectives", "all_reduce, all_gather, reduce_scatter, broadcast", None, "GB/s",
                        note=say("workload.microbench.row.skipped", reason=reason), key="collectives")], {"skipped": reason}


def _mib(value: int | None) -> int | None:
    return value * 2**20 if value else None


def _device_name(device: Any) -> str:
    """The device's model name as its driver gives it ("NVIDIA H200"), matched against the rated table."""
    from workloads.child import device as dev  # imports torch: lazy, as torch was here

    named = dev.model_name(device)   # None where a layer cannot name it: no rated figures, said as N/A
    if named is not None:
        return named
    return platform.processor() or platform.machine() if device.type == "cpu" else device.type


def _headline(results: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The fastest dtype's best GEMM figure: the workload's headline, with the dtype it is of."""
    ran = [r for r in results or [] if r.get("best") is not None and r["unit"] == "TFLOP/s"]  # int8 counts TOPS
    if not ran:
        return {}
    top = max(ran, key=lambda r: r["best"])
    return {"gemm_best_tflops": top["best"], "gemm_best_dtype": top["dtype"]}


def _precisions(results: list[dict[str, Any]] | None) -> str:
    """The dtypes the GEMM part ran (the report's precision row); fp32 for every other part."""
    ran = [r["dtype"] for r in results or [] if r.get("best") is not None]
    return ",".join(ran) if ran else "fp32"
