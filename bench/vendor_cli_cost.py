"""What reading a vendor CLI's cards costs cardbench: a 16-card table's parse, and a 1 Hz poll through a fake CLI.

    python bench/vendor_cli_cost.py [--repeats 200] [--polls 60]

1. parse: each reader's parse of a sixteen-card table (tests/vendor_tables.py: one real card block of a real
   capture repeated; npu-smi's is a real 16-card capture), median and worst of ``--repeats`` runs after one warm
   run, against the issue's bound of 20 ms.
2. poll: `VendorCliSource.read()` every tick against an executable that prints the same real capture, CPU time of
   this process and of its children (the tool's process: a real tool costs more of its own, which is the
   vendor's), per poll and as a share of one core at 1 Hz, against the workbench's idle budget of 2 % of a core.

Exit status 1 when a figure is over its bound.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO, os.path.join(REPO, "tests")]

from tui.telemetry import vendor_cli, vendors  # noqa: E402
from vendor_tables import sixteen_card_tables  # noqa: E402  (tests/vendor_tables.py)

PARSE_BOUND_MS = 20.0
POLL_BOUND_PCT = 2.0


def _cpu(children: bool) -> float:
    t = os.times()
    return t.user + t.system + ((t.children_user + t.children_system) if children else 0.0)


def parse_times(parse, text: str, repeats: int) -> tuple[float, float]:
    parse(text)   # imports done, regexes compiled
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        parse(text)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1000, max(runs) * 1000


def poll_cost(exe: str, text: str, polls: int) -> tuple[float, float, int]:
    """(CPU ms per poll of this process, of this process and the tool's, cards read)."""
    with tempfile.TemporaryDirectory() as folder:
        table = os.path.join(folder, "table.txt")
        with open(table, "w") as fh:
            fh.write(text)
        path = os.path.join(folder, exe)
        with open(path, "w") as fh:   # the table whatever it is asked: a JSON or -Q form fails once, then skipped
            fh.write(f"#!/bin/sh\ncase \"$1\" in --query|-Q|-L) exit 2;; esac\ncat {table}\n")
        os.chmod(path, 0o755)
        old_path = os.environ["PATH"]
        os.environ["PATH"] = folder + os.pathsep + old_path
        try:
            source = vendor_cli.VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == exe))
            devices, _ = source.read()
            own, both = _cpu(False), _cpu(True)
            for _ in range(polls):
                source.read()
            spent_own, spent_both = _cpu(False) - own, _cpu(True) - both
            source.close()
        finally:
            os.environ["PATH"] = old_path
    return spent_own / polls * 1000, spent_both / polls * 1000, len(devices)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--polls", type=int, default=60)
    args = parser.parse_args()
    ok = True
    print(f"{'tool':<13} {'parse 16 cards: median / worst':>31}   {'poll: own / with the tool':>27}   "
          f"{'share of a core at 1 Hz':>23}")
    for exe, (parse, text) in sixteen_card_tables().items():
        median, worst = parse_times(parse, text, args.repeats)
        own, both, cards = poll_cost(exe, text, args.polls)
        share = both / 1000 * 100   # one poll a second
        ok = ok and worst <= PARSE_BOUND_MS and share <= POLL_BOUND_PCT
        print(f"{exe:<13} {median:>14.2f} ms / {worst:>6.2f} ms {'':>5}  {own:>9.2f} ms / {both:>6.2f} ms "
              f"{'':>5} {share:>10.2f} % ({cards} cards)")
    print(f"bounds: parse {PARSE_BOUND_MS:g} ms (the issue's), poll {POLL_BOUND_PCT:g} % of one core (the workbench's "
          f"idle budget)")
    print("within bounds" if ok else "OVER A BOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
