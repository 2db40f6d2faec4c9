"""`cardbench compare A.zip B.zip [C...] [--baseline A]`: plugged into tui.cli through COMMAND_MODULES.

Light at import (argparse only): the work is imported by :func:`run`. Exit codes: 0 compared;
1 a ratio below ``--fail-below``; 2 an input or option compare cannot use (one line), or runs
with unlike settings without ``--allow-different``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workloads import exit_codes

FILES = ("compare.md", "compare.html", "compare.json", "compare.png")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compare", help="compare report bundles or runs: ratios with their uncertainty, prices, accuracy",
        description="Compare report bundles (.zip) or run directories, per workload: each figure, its ratio to "
                    "the baseline with hyperfine's uncertainty from the per-step spread, accuracy, and with prices "
                    "the performance per currency unit. Unlike runs (image size, batch, precision, model size) "
                    "are refused unless --allow-different.")
    p.add_argument("inputs", nargs="+", metavar="BUNDLE|RUN_DIR", help="report bundles or run directories: A, B, C...")
    p.add_argument("--baseline", metavar="SIDE",
                   help="the side the others are read against: A, B... in the order given, or an input's path or "
                        "file name (default: the first; with --against, the published figure)")
    p.add_argument("--allow-different", action="store_true", help="compare runs whose settings differ, and say so")
    p.add_argument("--price", action="append", default=[], metavar="SIDE=PRICE",
                   help="price per hour of a side (repeatable), e.g. --price A=6.5 --price B=11; default: the price "
                        "its bundle was exported with")
    p.add_argument("--currency", dest="compare_currency", metavar="CODE",
                   help="currency of the prices (CNY, USD...; default: the bundles', else USD)")
    p.add_argument("--against", metavar="DEVICE",
                   help='published figures of a device as the baseline, e.g. --against "A100 80GB"')
    p.add_argument("--fail-below", type=float, metavar="RATIO",
                   help="exit 1 when a side's headline ratio to the baseline is below RATIO (for scripts)")
    p.add_argument("--json", dest="compare_json", action="store_true", help="print the comparison as JSON")
    p.add_argument("-o", "--output", metavar="DIR", default=argparse.SUPPRESS,
                   help=f"also write {', '.join(FILES)} into DIR")
    p.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS, help="language of the Markdown and HTML")


def _fail(message: str) -> int:
    from workloads.safe_text import one_line

    print(one_line(message, 400), file=sys.stderr)   # it may quote a bundle's text: one line, no escapes
    return exit_codes.BAD_INPUT


def _labels(n: int) -> list[str]:
    return [chr(ord("A") + i) if i < 26 else f"S{i + 1}" for i in range(n)]


def pick(sides: list[Any], name: str, option: str) -> int:
    """The index of the side ``name`` names: its label, its path as given, its file name or that name's stem."""
    from tui.compare.load import CompareError

    for i, side in enumerate(sides):
        path = Path(side.path)
        if name.lower() == side.label.lower() or name in (side.path, path.name, path.stem):
            return i
    listed = ", ".join(f"{s.label}: {s.shown_path}" for s in sides)
    raise CompareError(f"cardbench compare: {option} {name!r} is none of the inputs ({listed})")


def _prices(specs: list[str], sides: list[Any]) -> dict[str, float]:
    from tui.compare.load import CompareError
    from tui.compare.shape import check_price

    out = {}
    for spec in specs:
        name, eq, text = spec.rpartition("=")
        try:
            price = float(text)
        except ValueError:
            price = None
        if not eq or not name or price is None:
            raise CompareError(f"cardbench compare: --price {spec[:60]!r} is not SIDE=PRICE (e.g. --price A=6.5)")
        # a number, however odd (-5, 1e300, nan), is judged by the bundle's rule, so both say the same
        out[sides[pick(sides, name, "--price")].label] = check_price(price, f"--price {name[:40]}")
    return out


def run(args: argparse.Namespace) -> int:
    from tui.compare import blocks, chart
    from tui.compare.comparison import compare
    from tui.compare.load import CompareError, load_side
    from tui.compare.published import against
    from tui.compare.shape import ShapeError, check_currency
    from workloads.safe_text import printable

    lang = getattr(args, "lang", "en")
    if args.fail_below is not None and not args.fail_below > 0:
        return _fail(f"cardbench compare: --fail-below {args.fail_below} is not a ratio above 0")
    if len(args.inputs) < 2 and not args.against:
        return _fail("cardbench compare: give two inputs or more (bundles or run directories), or one with --against")
    try:
        # the rule a bundle's currency is read by
        currency = None if args.compare_currency is None else check_currency(args.compare_currency, "--currency")
        sides = [load_side(path, label) for path, label in zip(args.inputs, _labels(len(args.inputs)))]
        if args.against:
            sides.append(against(args.against, sides))
        baseline = pick(sides, args.baseline, "--baseline") if args.baseline else (len(sides) - 1 if args.against
                                                                                   else 0)
        comparison = compare(sides, baseline, allow_different=args.allow_different,
                             prices=_prices(args.price, sides), currency=currency)
    except CompareError as exc:
        return _fail(str(exc))
    except ShapeError as exc:   # an option under a bundle's rule: --price, --currency
        return _fail(f"cardbench compare: {exc}")
    output = getattr(args, "output", None)
    png, why = None, None
    if output:
        from tui.report.png import PngError

        try:
            png = chart.png(comparison)
        except PngError as exc:
            why = str(exc)
            from workloads.catalogue import message

            comparison.notes.append(message("compare.note.png_missing", why=why))
    document = blocks.build(comparison, lang, chart=png is not None)
    markdown, as_json = _render(comparison, document)
    # what a bundle said (a host, a device, a run's own words) reaches the terminal and the files here: no escape
    # sequence or control character of theirs goes with it
    markdown, as_json = printable(markdown), printable(as_json)
    if output:
        try:
            written = _write(Path(output), comparison, document, markdown, as_json, png, lang)
        except OSError as exc:
            return _fail(f"cardbench compare: cannot write to {output}: {exc.strerror or exc}")
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
    sys.stdout.write(as_json if args.compare_json else markdown)
    if args.fail_below is not None:
        below = comparison.below(args.fail_below)
        if below:
            print(f"cardbench compare: below --fail-below {args.fail_below:g}: {'; '.join(below)}", file=sys.stderr)
            return exit_codes.FAILED
    return exit_codes.OK


def _render(comparison: Any, document: list[Any]) -> tuple[str, str]:
    import json

    from tui.report import markdown

    return markdown.render(document), json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _write(out: Path, comparison: Any, document: list[Any], markdown: str, as_json: str, png: bytes | None,
           lang: str) -> list[Path]:
    from tui.report import html
    from workloads.safe_text import printable

    out.mkdir(parents=True, exist_ok=True)
    from tui.i18n import say

    title = say("compare.title", lang)
    texts = {"compare.md": markdown, "compare.html": printable(html.render(document, title=title, lang=lang)),
             "compare.json": as_json}
    written = []
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    if png is not None:
        (out / "compare.png").write_bytes(png)
        written.append(out / "compare.png")
    return written
