"""The operator-coverage scan: which aten ops of a model run right on this device, in fp32, fp16 and bf16.

Run as ``python -m workloads.opscan [options]`` (or ``cardbench run opscan``).
This process is the supervisor (:mod:`~workloads.opscan.supervisor`, torch-free):
it checks the options, starts the worker that records the model's ops
(:mod:`~workloads.opscan.record`, :mod:`~workloads.opscan.sources`) and replays
each call in each dtype against float64 on the CPU
(:mod:`~workloads.opscan.replay`), and restarts it past a case that crashed or
hung. Events: ``start`` once the ops are recorded (``total_steps`` = cases); a
``step`` per case (op k of N, the counts by status so far); a ``warning`` per
op x dtype that fails; one ``result`` with the counts per status and dtype, the
failures and the modules that call them. ``ops.csv`` (one row per op x dtype)
goes to ``--out``, by default the run directory (``$CARDBENCH_RUN_DIR``) or the
scan's state directory.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from pathlib import Path
from typing import Any, Sequence

from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, arguments_checked, log,
                                     positive_float, positive_int)
from workloads.opscan import inject, statuses as st
from workloads.opscan.sources_names import BUILTINS
from workloads.opscan.state import ScanState
from workloads.protocol import RUN_DIR_ENV
from workloads.rundir import ops_csv
from workloads.opscan.result_record import OpscanResult

WORKLOAD = "opscan"


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Which aten ops of a model run right on this device, per dtype.")
    p.add_argument("--sources", default=None, metavar="NAMES",
                   help=f"built-in models to record, comma-separated: {','.join(BUILTINS)} "
                        "(default: all, unless --model or --opinfo is given)")
    p.add_argument("--model", default=None, metavar="MODULE:FUNC",
                   help="your model: FUNC() returns (model, example_inputs); forward, backward and an SGD step "
                        "are recorded")
    p.add_argument("--opinfo", nargs="?", const="", default=None, metavar="REGEX",
                   help="PyTorch's OpInfo samples (all, or the ops whose name matches); needs expecttest")
    p.add_argument("--dtypes", default=None, metavar="LIST",
                   help="dtypes to replay in: fp32,fp16,bf16,tf32 (default fp32,fp16,bf16, and tf32 where the "
                        "device has it)")
    p.add_argument("--device", default="auto", metavar="DEVICE",
                   help="cuda, cuda:1, cpu... (default: first accelerator)")
    p.add_argument("--op-timeout", type=positive_float, default=60.0, metavar="S",
                   help="seconds one case may take before it counts as a hang (default 60)")
    p.add_argument("--repeats", type=positive_int, default=3, metavar="N",
                   help="timed runs of each case after the first; the median is kept (default 3)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the inputs (default 0)")
    p.add_argument("--resume", action="store_true", help="continue the interrupted scan of the same options")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where ops.csv goes (default: the run directory, else the scan's state directory)")
    return p


def check(args: Any) -> dict[str, Any]:
    """Every option a scan cannot use, refused before torch is imported; returns the scan's plan."""
    dtypes = None
    if args.dtypes is not None:
        dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
        bad = [d for d in dtypes if d not in st.DTYPES]
        if bad or not dtypes:
            raise WorkloadError(f"--dtypes: unknown dtype {', '.join(bad) or '(none given)'}",
                                hint=f"use some of {','.join(st.DTYPES)}")
    sources = list(BUILTINS) if args.sources is None and args.model is None and args.opinfo is None else []
    if args.sources is not None:
        sources = [s.strip() for s in args.sources.split(",") if s.strip()]
        bad = [s for s in sources if s not in BUILTINS]
        if bad or not sources:
            raise WorkloadError(f"--sources: unknown model {', '.join(bad) or '(none given)'}",
                                hint=f"built-ins: {','.join(BUILTINS)}")
    if args.model is not None:
        module, _, func = args.model.partition(":")
        if not module or not func:
            raise WorkloadError(f"--model {args.model}: expected MODULE:FUNC", hint="e.g. --model mynet:build")
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise WorkloadError(f"--model {args.model}: no module named {module}",
                                hint="run from the directory that holds it, or add it to PYTHONPATH")
    if args.opinfo is not None:
        if importlib.util.find_spec("expecttest") is None:
            raise WorkloadError("--opinfo needs the expecttest package (PyTorch's OpInfo database imports it)",
                                hint="pip install expecttest (the cardbench[opinfo] extra)")
        try:
            re.compile(args.opinfo)
        except re.error as exc:
            raise WorkloadError(f"--opinfo {args.opinfo}: not a regular expression ({exc})") from None
    try:
        inject.parse()
    except inject.BadInjection as exc:
        raise WorkloadError(str(exc)) from None
    return {"sources": sources, "model": args.model, "opinfo": args.opinfo, "dtypes": dtypes,
            "device": args.device, "seed": args.seed, "repeats": args.repeats,
            "cwd": os.getcwd() if args.model else None}


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    plan = check(args)
    arguments_checked()

    from workloads.opscan import table
    from workloads.opscan.supervisor import Supervisor

    state = ScanState.for_plan(plan)
    resumed = state.start(plan, args.resume)
    if args.resume and not resumed:
        log("opscan: nothing to resume for these options; starting a new scan")
    earlier = state.rows()
    counts: dict[str, int] = {}
    for row in earlier:
        if row.get("status"):
            counts[row["status"]] = counts.get(row["status"], 0) + 1
    began = time.perf_counter()
    seen = {"done": len(earlier), "total": None}

    def hello(message: dict[str, Any]) -> None:
        if seen["total"] is not None:
            return  # a restarted worker says hello again
        seen["total"] = message["cases"]
        config = {"sources": plan["sources"], "model": plan["model"], "opinfo": plan["opinfo"],
                  "dtypes": message["dtypes"], "calls": message["recorded"], "total_steps": message["cases"],
                  "op_timeout_s": args.op_timeout, "repeats": args.repeats, "seed": args.seed,
                  "resumed_at_case": len(earlier) if resumed else None, "record_s": message["record_s"],
                  "inject_op_failure": os.environ.get(inject.ENV) or None, "state_dir": str(state.path)}
        emitter.start(WORKLOAD, config, message["device"], message["versions"])
        log(f"opscan: {message['recorded']} recorded calls x {', '.join(message['dtypes'])}: {message['cases']} "
            f"cases on {message['device']} (recorded in {message['record_s']:.1f} s)"
            + (f"; resuming at case {len(earlier) + 1}" if resumed else ""))

    def row(case: dict[str, Any]) -> None:
        seen["done"] += 1
        status = case.get("status")
        if status:
            counts[status] = counts.get(status, 0) + 1
        elapsed = time.perf_counter() - began
        ran = seen["done"] - len(earlier)  # a resumed scan's rate counts only the cases this run ran
        # op k of N, and the statuses so far; the rate is over every case this run ran
        emitter.step(seen["done"], throughput=ran / elapsed if elapsed > 0 else None, unit="cases/s",
                     throughput_window=ran, total_steps=seen["total"], counts="cases",
                     op=case["op"], dtype=case["dtype"], status=status, by_status=dict(counts),
                     label=" ".join(f"{k} {v}" for k, v in counts.items()))
        if status and status != st.OK:
            log(f"opscan: {case['op']} {case['dtype']}: {st.LABELS[status]}: {case.get('message', '')}")

    progress = Supervisor(state, args.op_timeout, hello, row).run()
    scan_s = time.perf_counter() - began
    recording = state.recording() or {"calls": [], "dtypes": []}
    device_is_cpu = progress.hello.get("device", "").lower().startswith("cpu")
    rows = table.fold(state.rows(), recording["calls"], device_is_cpu)
    out = args.out or Path(os.environ.get(RUN_DIR_ENV) or state.path)
    out.mkdir(parents=True, exist_ok=True)
    ops_csv.write_csv(out / ops_csv.OPS_CSV, rows)
    for failure in (r for r in rows if r["status"] != st.OK):
        emitter.warning(f"{failure['op']} in {failure['dtype']}: {st.LABELS[failure['status']]}"
                        f"{': ' + failure['message'] if failure['message'] else ''}", code=f"op_{failure['status']}",
                        op=failure["op"], dtype=failure["dtype"], modules=failure["modules"][:5])
    metrics = result_metrics(rows, recording, progress, scan_s, out / ops_csv.OPS_CSV, seen["done"] - len(earlier))
    log("\n".join(table.terminal_lines(metrics)))   # the report's table, in run.log before the result
    emitter.result(OpscanResult.of(metrics))
    return 0


def result_metrics(rows: list[dict[str, Any]], recording: dict[str, Any], progress: Any, scan_s: float,
                   csv_path: Path, cases_run: int) -> dict[str, Any]:
    from workloads.opscan import table

    dtypes = recording["dtypes"]
    by_dtype = {d: {s: 0 for s in st.STATUSES} for d in dtypes}
    for row in rows:
        by_dtype.setdefault(row["dtype"], {s: 0 for s in st.STATUSES})[row["status"]] += 1
    failures = [{k: row[k] for k in table.FAILURE_KEYS if k in row} for row in rows if row["status"] != st.OK]
    failed_dtypes = {f["dtype"] for f in failures}
    return {
        "ops": len({r["op"] for r in rows}), "calls": len(recording["calls"]), "rows": len(rows),
        "rows_ok": sum(1 for r in rows if r["status"] == st.OK), "rows_failed": len(failures),
        "by_dtype": by_dtype, "failures": failures,
        # a list: "none" is said in the reader's language where none is clean (tui/figures.metric_text)
        "precisions_clean": [d for d in dtypes if d not in failed_dtypes],
        "precision_verdict": {d: ("usable: every recorded op ok" if d not in failed_dtypes else
                                  "failing ops: " + ", ".join(sorted({f["op"] for f in failures if f["dtype"] == d})))
                              for d in dtypes},
        "restarts": progress.crashes + progress.hangs, "crashes": progress.crashes, "hangs": progress.hangs,
        "restart_s": [round(s, 3) for s in progress.restarts_s],
        "record_s": recording.get("record_s"), "scan_s": scan_s,
        "cases_run": cases_run, "cases_per_s": cases_run / scan_s if scan_s > 0 else None,
        "ops_csv": str(csv_path),
    }

