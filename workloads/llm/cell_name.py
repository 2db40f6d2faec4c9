"""A cell's name as every line says it: '32 in x 16 out x batch 1' (torch-free: the report names cells too)."""

from __future__ import annotations

from typing import Any


def cell_name(input_len: Any, output_len: Any, batch: Any) -> str:
    """'{input} in x {output} out x batch {batch}': the step's label, a warning's subject, the report's summary."""
    return f"{input_len} in x {output_len} out x batch {batch}"
