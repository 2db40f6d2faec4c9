"""`cardbench doctor --data DIR`: a quick look at a data directory, torch-free and within a few seconds.

The survey with short caps (where DIR lives, its files, what cannot be read), then a one-second warm read of
some of its files for a files/s figure. The loader sweep and the verdict are the workload's:
`cardbench run dataio --data DIR`.
"""

from __future__ import annotations

from typing import Any

from workloads.catalogue import Message, message, say
from workloads.dataio import storage, survey
from workloads.safe_text import file_name

WALK_S = 3.0
READ_S = 1.0
ENTRIES = 50_000
SLOW = ("network", "fuse", "overlay")   # kinds that often feed a loader slowly: worth the full workload


def check(path: str) -> dict[str, Any]:
    """{status, evidence, hint, zh, value, unit}: FAIL for a DIR that cannot be used, WARN for one that is slow
    to find or read from (network, FUSE, overlay) or has unreadable files or link loops, else PASS."""
    full = message("workload.dataio.quick.run_full", path=path)
    try:
        s = survey.survey(path, max_entries=ENTRIES, seconds=WALK_S, sample_size=2000)
    except survey.NoData as exc:
        hint = Message("workload.dataio.quick.give_folder")
        return {"status": "FAIL", "evidence": str(exc), "hint": hint.en,
                "zh": {"evidence": say("workload.dataio.quick.unusable", "zh", error=str(exc)), "hint": hint("zh")}}
    few = s.sample[:: max(1, len(s.sample) // 200)][:200]
    read = storage.read_files(few, READ_S, again_until=READ_S / 4)
    rate = read["files"] / read["seconds"] if read["files"] else None
    said = survey.describe(s) + (f"; read {rate:,.0f} files/s (cache state as found)" if rate else "; no file read")
    kind = s.mount.kind if s.mount else None
    worries = []
    if kind in SLOW:
        worries.append(f"the data is on {s.mount.describe() if s.mount else kind}")
    skipped = [f"{n} {what}" for n, what in ((s.unreadable, "unreadable"), (s.loops, "link loop(s)"),
                                             (s.oversize, survey.OVERSIZE)) if n]
    if skipped:
        worries.append(f"{' and '.join(skipped)} skipped")
    status = "WARN" if worries else "PASS"
    return {"status": status, "evidence": said, "value": round(rate, 1) if rate else None, "unit": "files/s",
            "hint": (f"{'; '.join(worries)}: run {full.en}" if worries else ""),
            "zh": {"evidence": _found(s, rate, "zh"), **({"hint": full("zh")} if worries else {})}}


def _found(s: survey.Survey, rate: float | None, lang: str) -> str:
    """What the survey found, said in the doctor's other language (its English is the survey's own words)."""
    fs = s.mount.fs_type if s.mount else Message("workload.dataio.quick.unknown_fs")
    parts: list[Any] = [message("workload.dataio.quick.found", root=file_name(s.root), fs=fs, images=f"{s.images:,}",
                                at_least="" if s.complete else Message("workload.dataio.quick.at_least"))]
    if rate:
        parts.append(message("workload.dataio.quick.read", rate=f"{rate:,.0f}"))
    if s.unreadable or s.loops:
        parts.append(message("workload.dataio.quick.skipped", unreadable=s.unreadable, loops=s.loops))
    if s.oversize:
        parts.append(message("workload.dataio.quick.oversize", n=s.oversize))
    return "".join(part(lang) for part in parts)
