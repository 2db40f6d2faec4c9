"""Does any table of report.html run past the window? Rendered by headless Chromium at 1280 and 800 px.

    python bench/report_width.py [REPORT.html | BUNDLE.zip ...] [--widths 1280,800] [--keep DIR]

With no report named, it builds two bundles (English and Chinese) from runs made by hand: an LLM readiness sweep
of 18 cells (its table has 17 columns, the widest the report has), a ResNet-50 run and the doctor's checks on this
machine, exported as `cardbench export --run` does. Each report.html is opened in a browser window of each width
(a measuring script is added to a copy beside it, so its images still load) and, for each table, prints its
columns, its width, how far it runs past the window (0: it does not) and how many cells had a word broken
inside it to fit (a number split over two lines; headers are not counted). Exit status 1
when a table runs past a window, 2 when no browser is found.

A browser is not part of the test extra (pip cannot install one): `apt-get install chromium` (Debian), or any
of chromium, chromium-browser, google-chrome on PATH, or $CHROME naming one. The suite checks the CSS rule
itself (tests/tui/report/test_report_html_width.py); this is the check that a browser lays it out as meant.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MARK = "cardbench-widths"
# run once the page (and its images) has loaded: each table's box against the window's, as JSON in a <pre>
MEASURE = """<script>
addEventListener("load", () => {
  const view = document.documentElement.clientWidth;
  const broken = (cell) => {
    const words = cell.textContent.trim().split(/\\s+/).filter(Boolean);
    // a cell of one word (a number, a status), not Chinese (which wraps between any two characters)
    if (words.length !== 1 || !/^[\\x21-\\x7e]+$/.test(words[0])) return false;
    const range = document.createRange(); range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
  };
  const tables = [...document.querySelectorAll("table")].map((t, i) => {
    const r = t.getBoundingClientRect();
    let h = t.previousElementSibling;
    while (h && !/^H[1-6]$/.test(h.tagName)) h = h.previousElementSibling;
    return {index: i + 1, columns: t.rows[0] ? t.rows[0].cells.length : 0, width: Math.round(r.width),
            overflow: Math.max(0, Math.ceil(r.right - view)), heading: h ? h.textContent.slice(0, 48) : "",
            broken: [...t.querySelectorAll("td")].filter(broken).length};
  });
  const out = document.createElement("pre"); out.id = "%s";
  out.textContent = JSON.stringify({view, page: document.documentElement.scrollWidth, tables});
  document.body.appendChild(out);
});
</script>""" % MARK


def browser() -> str | None:
    named = os.environ.get("CHROME")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def measure(chrome: str, page: Path, width: int) -> dict:
    """The page laid out in a ``width`` px window: the window's inner width, the page's, and each table's."""
    probe = page.with_name(f".width-probe-{width}.html")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("</body>", MEASURE + "\n</body>", 1), encoding="utf-8")
    try:
        done = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
                               probe.as_uri()], capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink(missing_ok=True)
    found = re.search(rf'<pre id="{MARK}">(.*?)</pre>', done.stdout, re.S)
    if not found:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        sys.exit(f"report_width: {chrome} measured nothing in {page} (exit {done.returncode}): {tail}")
    return json.loads(html.unescape(found.group(1)))


def report_pages(named: list[str], into: Path) -> list[Path]:
    """report.html of each path named (a page, or a bundle's zip unpacked into ``into``), else of built bundles."""
    if not named:
        from report_width_runs import build_bundles   # beside this script: runs made by hand

        named = [str(z) for z in build_bundles(into)]
    pages = []
    for i, name in enumerate(named):
        path = Path(name)
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                zf.extractall(into / f"bundle-{i}")
            path = next((into / f"bundle-{i}").rglob("report.html"), path)
        if not path.is_file() or path.suffix not in (".html", ".htm"):
            sys.exit(f"report_width: {name} is not a report.html nor a bundle that holds one")
        pages.append(path)
    return pages


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="*", help="report.html files or bundle zips (default: bundles built here)")
    p.add_argument("--widths", default="1280,800", help="window widths in px, comma-separated")
    p.add_argument("--keep", type=Path, help="build and unpack the bundles here instead of a temporary directory")
    args = p.parse_args()
    try:
        widths = [int(w) for w in args.widths.split(",")]
    except ValueError:
        sys.exit(f"report_width: --widths wants whole pixels, comma-separated: {args.widths!r}")
    chrome = browser()
    if chrome is None:
        print("report_width: no browser found (chromium, chromium-browser, google-chrome, or $CHROME): "
              "apt-get install chromium", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="report-width-") as tmp:
        into = args.keep or Path(tmp)
        into.mkdir(parents=True, exist_ok=True)
        over = 0
        for page in report_pages(args.reports, into):
            for width in widths:
                got = measure(chrome, page, width)
                print(f"\n{page} at {width} px: window {got['view']} px, page {got['page']} px wide"
                      + ("" if got["page"] <= got["view"] else " (scrolls sideways)"))
                for t in got["tables"]:
                    over += t["overflow"] > 0
                    print(f"  table {t['index']:2} {t['columns']:2} columns {t['width']:5} px  "
                          f"overflow {t['overflow']:4} px  words broken {t['broken']:3}  {t['heading']}")
    print(f"\n{over} table(s) ran past the window" if over else "\nno table ran past the window")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
