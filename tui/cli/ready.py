"""`cardbench ready --model PRESET | --weights DIR`: should this model move to this card? One run within a budget.

    cardbench ready --model Llama-3.1-8B [--dtype bf16] [--budget 15] [--data DIR] [--price-per-hour P]
    cardbench ready --model Llama-3.1-8B --against reference-bundle.zip --price-per-hour 6.5 --currency CNY

The doctor, then the sub-runs (`tui.ready.steps`, each a run in the run store), the data directory's quick look,
then the readiness table and one verdict line per question on stdout, in each run's directory
(``readiness.json``) and in the report bundle, whose path is the last line. Progress goes to stderr.

Bad input is one line on stderr and exit 2 before anything runs (before the doctor, before any run directory): an
unknown preset, a --weights that is not a directory or no checkpoint, a --data that does not exist, a budget that is
not a positive number of minutes, a negative price, a --device this machine's torch has no such device for, an
--against that holds no readiness or one of another model or of another --dtype given (with --dtype auto the
reference's dtype is the one judged). Exit 1 when a verdict is FAIL or the bundle could not be written (the runs
stay, `cardbench export --run` can retry); 130 when interrupted.

Light to import (argparse and the steps' table): `cardbench` builds every command's parser at start.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.cli.errors import CliError
from tui.workbench.ready_entry import BUDGET_MIN, budget_minutes
from tui.ready.steps import DTYPES, Model
from workloads import exit_codes
from workloads.models.llama.presets import known_models, preset

if TYPE_CHECKING:
    from tui.headless import Checked

NAME = "ready"


def _minutes(text: str) -> float:
    try:
        return budget_minutes(text)   # the one rule, the launcher's entry checks its field with it too
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="should this model move to this card? fit, ops, loss, speed, cold start, data IO",
                       description="Answer, within a budget, whether a model is ready for this card: does it fit, do "
                                   "its ops run on the card in the dtype, does its loss agree with float64 on the "
                                   "CPU, prefill and decode against the card's bounds, fine-tune tokens/s and MFU, "
                                   "cold start and data IO; a table (measured, rated or bound, ratio) and one verdict "
                                   "line per question, in the runs and the report bundle.")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="PRESET", default="tiny", help=f"one of {known_models()} (default tiny)")
    which.add_argument("--weights", metavar="DIR", type=Path, help="a local Hugging Face checkpoint directory")
    p.add_argument("--dtype", choices=("auto", *DTYPES), default="auto",
                   help="the dtype to judge (auto: the --against reference's; else fp32 on the CPU, else the mixed "
                        "precision the card runs)")
    p.add_argument("--budget", type=_minutes, default=BUDGET_MIN, metavar="MIN",
                   help=f"minutes for the whole check (default {BUDGET_MIN:g}); a step that would overrun is skipped")
    p.add_argument("--data", metavar="DIR", help="your training data (a folder or a file of text), for the data IO "
                                                 "row: its read rate against the fine-tune's (N/A without it)")
    p.add_argument("--against", metavar="BUNDLE", type=Path,
                   help="the report bundle (.zip) or a run directory of the same command on the reference card")
    # SUPPRESS: the same options given before the command (they are `cardbench`'s too) are kept
    p.add_argument("--device", metavar="DEV", default=argparse.SUPPRESS, help="torch device (default: auto)")
    p.add_argument("--price-per-hour", type=float, metavar="PRICE", default=argparse.SUPPRESS,
                   help="this instance's price, for performance per unit of price against the reference")
    p.add_argument("--currency", default=argparse.SUPPRESS, help="currency of --price-per-hour (default USD)")
    p.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS, help="language of the table and report")
    p.add_argument("-o", "--output", metavar="DIR", default=argparse.SUPPRESS, help="where the bundle goes (default .)")
    p.add_argument("--runs-dir", metavar="DIR", default=argparse.SUPPRESS, help="where the runs are kept")
    return p


def asked_model(args: argparse.Namespace) -> Model:
    """The model asked for, refused (CliError, exit 2) when the arguments alone say it cannot be."""
    weights = getattr(args, "weights", None)
    if weights is not None and not weights.is_dir():
        raise CliError(f"cardbench ready: --weights {weights}: not a directory", exit_codes.BAD_INPUT)
    if weights is None and preset(args.model) is None:
        raise CliError(f"cardbench ready: unknown model {args.model!r}; known: {known_models()}", exit_codes.BAD_INPUT)
    device = getattr(args, "device", None)
    if device is not None:
        from tui.headless import check_device
        from tui.report.bundle import BundleError

        try:
            check_device(device)   # a device type torch has no name for: refused here, not in each run's log
        except BundleError as exc:
            raise CliError(f"cardbench ready: {exc}", exit_codes.BAD_INPUT) from None
    data = getattr(args, "data", None)
    if data is not None and not Path(data).exists():
        raise CliError(f"cardbench ready: --data {data}: no such file or directory", exit_codes.BAD_INPUT)
    return Model(preset=args.model, weights=weights, dtype=args.dtype, device=getattr(args, "device", None))



def _bad(message: str) -> CliError:
    return CliError(f"cardbench ready: {message}", exit_codes.BAD_INPUT)


def _reference(args: argparse.Namespace, model: Model) -> tuple[Any, Model]:
    """The --against readiness (None without one), refused now when the model (or a dtype given) differs, and the
    model to judge: with --dtype auto in the reference's dtype, the same work on both cards."""
    import dataclasses

    from tui.ready.against import AgainstError, load, refuse_other
    from tui.ready.steps import DTYPES

    if args.against is None:
        return None, model
    try:
        reference = load(args.against)
        refuse_other(reference, model.name, None if model.dtype == "auto" else model.dtype, args.against)
    except AgainstError as exc:
        raise _bad(str(exc)) from None
    if model.dtype != "auto":
        return reference, model
    if reference.dtype not in DTYPES:   # read from a file someone sent: a dtype no step takes is no question
        raise _bad(f"--against {args.against} is a readiness in {reference.dtype[:40]!r}, not one of "
                   f"{', '.join(DTYPES)}")
    return reference, dataclasses.replace(model, dtype=reference.dtype)


def _checked(args: argparse.Namespace) -> Checked:
    """The output dir, the report's options and the run store (headless `checked`), proved usable before anything
    runs; no $CARDBENCH_HEADLESS_ARGS: this command runs no suite."""
    from tui.headless import checked
    from tui.report.bundle import BundleError
    from tui.store import RunStoreError

    try:
        return checked(args, overrides=False)
    except (BundleError, RunStoreError) as exc:
        raise _bad(str(exc)) from None


def _doctor(progress: Any) -> list[dict[str, Any]]:
    """The doctor's checks (what the device is and which precision it runs); none when it cannot run."""
    from tui.headless import run_doctor

    progress.begin("doctor")
    checks, why = run_doctor(progress)
    if why:
        progress.say(f"  {why}")
    progress.end()
    return checks


def _unsupported(steps: list[Any]) -> dict[str, dict[str, str]]:
    """Each step's arguments checked by its workload before anything runs: a bad one (a --weights dir that is no
    checkpoint) is exit 2; an option this cardbench's workload does not have (llm's --cold-start before it
    exists) makes that step's row N/A, with the reason."""
    from concurrent.futures import ThreadPoolExecutor

    from tui.cli.check_args import check_workload_args
    from tui.i18n.voice import quoted
    from tui.ready.rows import words

    # the first llm and finetune steps (the others take the same model arguments, or none of the user's) and the
    # cold start, each a child of a second or more: at once
    firsts = {s.workload: s for s in reversed(steps) if s.workload in ("llm", "finetune") and s.name != "cold_start"}
    probed = [*firsts.values(), *(s for s in steps if s.name == "cold_start")]

    def refusal(step: Any) -> CliError | None:
        try:
            check_workload_args(step.workload, list(step.args))
        except CliError as exc:
            return exc
        return None

    with ThreadPoolExecutor(max_workers=len(probed) or 1) as pool:
        refused = list(pool.map(refusal, probed))
    unsupported = {}
    for step, exc in zip(probed, refused):
        if exc is None:
            continue
        if step.name == "cold_start":   # its options are this command's, not the user's: the row says why
            lacking = "unrecognized arguments" in str(exc) and "--cold-start" in str(exc)
            unsupported[step.name] = words("why.no_cold_start") if lacking else \
                words("why.refused", why=quoted(str(exc)))
            continue
        raise _bad(str(exc).removeprefix("cardbench run ")) from None
    return unsupported


def _before_anything(args: argparse.Namespace) -> tuple[Model, Any, dict[str, dict[str, str]], Checked]:
    """Every refusal the arguments alone decide, before the doctor: the model, the price, the reference (its dtype
    taken for auto), the device on this machine, the steps' options; then the output and runs dirs made."""
    import dataclasses

    from tui.headless import accelerator
    from tui.headless.output import report_options
    from tui.ready import steps as plan
    from tui.ready.device_present import absent
    from tui.report.bundle import BundleError

    model = asked_model(args)
    try:
        report_options(args)   # the price's rule; `_checked` reads the options again once nothing refuses
    except BundleError as exc:
        raise _bad(str(exc)) from None
    reference, model = _reference(args, model)
    missing = absent(model.device)
    if missing:
        raise _bad(missing)
    # the steps' options as the plan gives them where the doctor has not said yet: on the CPU for auto, in fp32
    guess_cpu = not accelerator([], model.device)
    unsupported = _unsupported(plan.plan(dataclasses.replace(
        model, dtype=plan.resolve_dtype(model.dtype, guess_cpu, "off")), guess_cpu))
    return model, reference, unsupported, _checked(args)   # the runs dir made only once nothing refuses


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import time

    from tui.headless.progress import Progress
    from tui.ready import steps as plan
    from tui.doctor import best_autocast
    from tui.headless import accelerator

    started = time.monotonic()
    model, reference, unsupported, where = _before_anything(args)
    progress = Progress(phases=6)   # counted again once the steps are planned
    checks = _doctor(progress)
    on_cpu = not accelerator(checks, model.device)
    model = dataclasses.replace(model, dtype=plan.resolve_dtype(model.dtype, on_cpu, best_autocast(checks)))
    steps = plan.plan(model, on_cpu)
    progress.phases = len(steps) + 2 + (1 if args.data else 0)   # the doctor, the steps, the data, the bundle
    return _measure(args, model, steps, unsupported, reference, where, progress, checks, started)


def _measure(args: argparse.Namespace, model: Model, steps: list[Any], unsupported: dict[str, dict[str, str]],
             reference: Any, where: Checked, progress: Any, checks: list[dict[str, Any]], started: float) -> int:
    """The sub-runs within the budget, the data directory's look, then the readiness said and bundled."""
    import time

    from tui.headless import start_sampler
    from tui.ready.data_read import read
    from tui.ready.runs import Budget, run_steps
    from tui.session import RunSession

    session = RunSession(where.store)
    sampler = start_sampler(progress, session)
    try:
        gave, state = run_steps(steps, session, progress, Budget(started + args.budget * 60, args.budget * 60),
                                checks, unsupported)
    finally:
        sample = getattr(sampler, "latest", None) if sampler is not None else None
        if sampler is not None:
            sampler.stop()
    data = None
    if args.data and not state.interrupted:
        progress.begin("data IO (a timed read of --data)")
        data = read(Path(args.data))
        progress.end()
    readiness = _readiness(model, gave, data, reference, where.options, args, time.monotonic() - started)
    return _finish(readiness, gave.run_dirs, state.interrupted, where.output, where.options, progress, checks, sample)


def _readiness(model: Model, gave: Any, data: Any, reference: Any, options: dict[str, Any],
               args: argparse.Namespace, wall_s: float) -> Any:
    from tui.ready.against import against_rows
    from tui.ready.readiness import Readiness
    from tui.ready.rows import rows_of

    rows = rows_of(gave.results, gave.why, model.dtype, data, str(getattr(args, "data", None) or ""))
    made = Readiness(model=model.name, dtype=model.dtype, device=gave.device or (model.device or ""),
                     rows=tuple(rows), budget_s=args.budget * 60, wall_s=wall_s,
                     price_per_hour=options.get("price_per_hour"), currency=options.get("currency") or "USD",
                     runs=tuple(p.name for p in gave.run_dirs))
    if reference is None:
        return made
    import dataclasses

    return dataclasses.replace(made, against=tuple(against_rows(made, reference)),
                               reference={"device": reference.device, "where": str(args.against),
                                          "price_per_hour": reference.price_per_hour, "currency": reference.currency})


def _finish(readiness: Any, run_dirs: list[Path], interrupted: bool, output: Path, options: dict[str, Any],
            progress: Any, checks: list[dict[str, Any]], sample: Any) -> int:
    """readiness.json into the runs, the table on stdout, the bundle with its section; the exit status."""
    from tui.headless.output import build_bundle, bundle_signals, print_path, retry_hint, say_error
    from tui.ready import readiness as record
    from tui.ready.rows import FAIL
    from tui.ready.table import blocks, terminal_lines
    from tui.report import markdown
    from tui.report.bundle import BundleError

    for failed in record.write(readiness, run_dirs):
        say_error(f"the readiness could not be kept in {failed}")
    lang = options.get("lang") or "en"
    for line in terminal_lines(readiness, lang):
        print(line, flush=True)
    progress.begin("report bundle")
    try:
        with bundle_signals():
            # the report's section in its language; the table in both beside it, as readiness.md and .zh.md
            both = {f"readiness{'' if each == 'en' else '.' + each}.md": markdown.render(blocks(readiness, each))
                    for each in ("en", "zh")}
            path = build_bundle(run_dirs, output, progress, checks, None, [], sample,
                                {**options, "sections": tuple(blocks(readiness, lang)), "files": both})
    except BundleError as exc:
        say_error(f"{exc}{retry_hint(run_dirs)}")
        return exit_codes.FAILED
    progress.end()
    print_path(path)
    if interrupted:
        return exit_codes.INTERRUPTED
    return exit_codes.FAILED if any(r.verdict == FAIL for r in readiness.rows) else exit_codes.OK
