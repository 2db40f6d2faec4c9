"""`cardbench doctor --data DIR`: a quick look at a data directory, torch-free and within a few seconds.

The survey with short caps (where DIR lives, its files, what cannot be read), then a one-second warm read of
some of its files for a files/s figure. The loader sweep and the verdict are the workload's:
`cardbench run dataio --data DIR`.
"""

from __future__ import annotations

from typing import Any

from workloads.dataio import storage, survey
from workloads.safe_text import file_name

WALK_S = 3.0
READ_S = 1.0
ENTRIES = 50_000
SLOW = ("network", "fuse", "overlay")   # kinds that often feed a loader slowly: worth the full workload


def check(path: str) -> dict[str, Any]:
    """{status, evidence, hint, zh, value, unit}: FAIL for a DIR that cannot be used, WARN for one that is slow
    to find or read from (network, FUSE, overlay) or has unreadable files or link loops, else PASS."""
    full = f"`cardbench run dataio --data {path}` for the loader sweep and the verdict"
    full_zh = f"运行 `cardbench run dataio --data {path}` 做 DataLoader 扫描并给出结论"
    try:
        s = survey.survey(path, max_entries=ENTRIES, seconds=WALK_S, sample_size=2000)
    except survey.NoData as exc:
        return {"status": "FAIL", "evidence": str(exc), "hint": "give a readable folder of images",
                "zh": {"evidence": f"数据目录不可用：{exc}", "hint": "请给出一个可读的图像文件夹"}}
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
    zh = f"{file_name(s.root)}：{s.mount.fs_type if s.mount else '未知文件系统'}，{'至少 ' if not s.complete else ''}{s.images:,} 个图像文件" \
         + (f"，读取 {rate:,.0f} 个文件/秒" if rate else "") \
         + (f"；跳过不可读 {s.unreadable} 个、链接环 {s.loops} 个" if s.unreadable or s.loops else "") \
         + (f"；跳过大于任何图像可能大小的文件 {s.oversize} 个" if s.oversize else "")
    return {"status": status, "evidence": said, "value": round(rate, 1) if rate else None, "unit": "files/s",
            "hint": (f"{'; '.join(worries)}: run {full}" if worries else ""),
            "zh": {"evidence": zh, **({"hint": full_zh} if worries else {})}}
