"""An op x dtype row's note in words (torch-free): what its status does not say, said from the row's figures as
catalogue messages, so ops.csv (English) and the report (the reader's language) say the same note.

The note is built around the worst call's own message: an error's text from torch (or a dead worker's last line)
stays as it was written; the scan's own words (an NMSE over its threshold, NaN/inf counted, a worker that died or
hung, how many of the op's calls failed or were not run) are messages. A row from before these figures (no
``ran_calls``) carries its note as the English it was written in: said as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.catalogue import Joined, Said, message
from workloads.opscan import statuses as st


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _own(row: Mapping[str, Any]) -> Said | str:
    """The worst call's own note: the scan's findings as messages, anything from outside as written."""
    own = str(row.get("case_message") or "")
    if row.get("status") == st.MISMATCH and (own.startswith("NMSE") or "NaN/inf" in own):
        nmse, limit, nonfinite = row.get("nmse"), row.get("threshold"), row.get("nonfinite")
        parts: list[Any] = []
        if _number(nmse) and _number(limit) and nmse > limit:
            parts.append(message("workload.opscan.note.nmse", nmse=f"{nmse:.3g}", threshold=f"{limit:g}"))
        if _number(nonfinite) and nonfinite:
            parts.append(message("workload.opscan.note.nonfinite", n=nonfinite))
        return Joined(tuple(parts)) if parts else own
    if row.get("status") == st.HANG and _number(row.get("timeout_s")):
        return message("workload.opscan.note.hung", seconds=f"{row['timeout_s']:g}")
    if row.get("status") == st.CRASH and row.get("worker_how"):
        said = message("workload.opscan.note.said", line=row["worker_said"]) if row.get("worker_said") else ""
        return message("workload.opscan.note.died", how=str(row["worker_how"]), said=said)
    return own


def note(row: Mapping[str, Any]) -> Said | str:
    """'1 of 2 calls: NMSE 0.3 > 0.0005 (1 more call(s) of it not run after that)', in either language."""
    if "ran_calls" not in row:
        return str(row.get("message") or "")   # a row of another version: as it was written
    said: Said | str = _own(row)
    skipped, failing, ran = row.get("skipped_calls") or 0, row.get("failing_calls") or 0, row.get("ran_calls") or 0
    if skipped:
        said = message("workload.opscan.note.skipped", note=said, n=skipped)
    if failing and ran > 1:
        said = message("workload.opscan.note.of_calls", note=said, failing=failing, ran=ran)
    return said

