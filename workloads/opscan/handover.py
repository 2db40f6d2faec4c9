"""The scan's verdict handed to the workloads after it in the headless suite, and the note that says so (torch-free).

The scan names the modules of its built-in sources by source (``resnet50:bn1
(BatchNorm2d)``); a later workload named like one of those sources takes ``--ops-from
<the scan's run dir>`` under ``--amp``: the module types that call an op the scan
found failing in that dtype start in fp32, so nothing has to fall back mid-run. When
the scan did not finish ok, that workload runs as it would without it. Either way
the note says which precision it was given and why. The suite calls :func:`hand_over`
through the spec (``WorkloadSpec.hand_over``) and names no workload.
"""

from __future__ import annotations

from pathlib import Path

from workloads.catalogue import Message, message
from workloads.opscan.sources_names import BUILTINS
from workloads.spec import Text, flag_value

OPS_FROM = "--ops-from"


def hand_over(scan_dir: Path | None, why_not: Text | Message, workload: str, args: list[str]) -> Message | None:
    """Add ``--ops-from`` to a later job's ``args`` when the scan allows it; the note on its precision (None: the
    scan does not name its modules, or its arguments already name a scan)."""
    if workload not in BUILTINS or flag_value(args, OPS_FROM) is not None:
        return None
    amp = flag_value(args, "--amp") or "off"
    if amp == "off":
        return Message("workload.opscan.hand_over.amp_off")
    if scan_dir is None:
        return message("workload.opscan.hand_over.no_scan", amp=amp, why_not=why_not)
    return _handed(scan_dir, workload, args, amp)


def _handed(scan_dir: Path, workload: str, args: list[str], amp: str) -> Message:
    from workloads.rundir import ops_csv   # the run-dir reader: at a suite's hand-over, not with the registry

    try:
        found = ops_csv.failing(scan_dir, amp, source=workload)  # one read, one module rule for types and ops
        types, ops = sorted(found), sorted(set().union(*found.values()))
    except (OSError, ValueError, KeyError) as exc:
        # the workload would stop on the same unreadable directory: it runs without the verdict instead
        return message("workload.opscan.hand_over.unreadable", amp=amp, error=str(exc))
    args += [OPS_FROM, str(scan_dir)]
    if not types:
        return message("workload.opscan.hand_over.all_ok", amp=amp, workload=workload)
    kept, failing = ", ".join(types), ", ".join(ops)
    return message("workload.opscan.hand_over.kept", amp=amp, kept=kept, ops_from=OPS_FROM, failing=failing)
