"""Sixteen-card tables for each vendor CLI reader, made by repeating one real card block of a real capture.

Used by the readers' test (every card read) and by bench/vendor_cli_cost.py (how long a parse takes): a
16-card table of these tools was found for npu-smi only (a real capture, used as it is).
"""

from __future__ import annotations

from typing import Callable

from paths import FIXTURES

# exe -> (reader module, parse function, capture, (head end, card block start, card block end, tail start));
# None for a capture that already lists sixteen cards
_SPEC: dict[str, tuple[str, str, str, tuple[int, int, int, int] | None]] = {
    "npu-smi": ("npu_smi", "parse_info", "npu-smi/info-16x910b2c-24.1.rc2-loaded.txt", None),
    "cnmon": ("cnmon", "parse_table", "cnmon/default-8x-mluxxx-v5.10.31-redacted.txt", (7, 7, 10, 31)),
    "efsmi": ("efsmi", "parse_table", "efsmi/default-2x-s60g-1.6.3.12-sriov.txt", (11, 11, 14, 10 ** 6)),
    "hl-smi": ("hl_smi", "parse_table", "hl-smi/default-8x-hl225-1.21.1-under-load.txt", (8, 8, 11, 32)),
    "mthreads-gmi": ("mthreads_gmi", "parse_table", "mthreads-gmi/default-8x-s5000-2.4.1-no-processes.txt",
                     (8, 8, 12, 40)),
    "mx-smi": ("mx_smi", "parse_table", "mx-smi/default-8x-c550-2.2.4-gpu-state.txt", (13, 13, 16, 37)),
    "xpu_smi": ("xpu_smi", "parse_table", "xpu-smi/default-8x-p800-oam-xre5.0.21.21.txt", (8, 8, 12, 40)),
}


def sixteen_card_tables() -> dict[str, tuple[Callable[[str], list], str]]:
    """exe -> (its reader's parse function, a table of sixteen cards)."""
    import importlib

    out = {}
    for exe, (module, parse, capture, cut) in _SPEC.items():
        text = (FIXTURES / capture).read_text()
        if cut is not None:
            lines = text.splitlines()
            head, start, end, tail = cut
            text = "\n".join(lines[:head] + lines[start:end] * 16 + lines[tail:]) + "\n"
        out[exe] = (getattr(importlib.import_module(f"tui.telemetry.readers.{module}"), parse), text)
    return out
