"""Every doctor check, in the order the doctor shows them (`checks_from`): pure functions of the facts. UI-free."""

from __future__ import annotations

from tui.doctor.busy import check_busy
from tui.doctor.check import DoctorCheck
from tui.doctor.checks import (check_arch, check_autocast, check_cli, check_disk, check_env, check_init, check_kernel,
                               check_nvml, check_pci, check_tensorflow, check_torch_import, check_torch_sees)
from tui.doctor.facts import Facts
from tui.doctor.health import check_health


def checks_from(f: Facts) -> list[DoctorCheck]:
    return [
        check_cli(f),
        check_nvml(f),
        check_pci(f),
        check_torch_import(f),
        check_torch_sees(f),
        check_arch(f),
        check_init(f),
        check_kernel(f),
        check_autocast(f, "fp16"),
        check_autocast(f, "bf16"),
        check_tensorflow(f),
        check_disk(f),
        check_env(f),
        check_busy(f),
        check_health(f),
    ]
