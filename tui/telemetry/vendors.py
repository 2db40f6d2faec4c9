"""Accelerator makers and their management CLIs: the one table the doctor, telemetry and the report read.

``MAKERS`` names a card's maker from its PCI vendor id (read before any vendor
library loads, so a compatibility layer that answers as "NVIDIA" is still
named for who made the card). ``CLIS`` lists the management tools, in the one
order every consumer tries them, first found on PATH wins:

1. ``nvidia-smi`` first: campaigns ask for "a screenshot of nvidia-smi", and a
   compatibility layer that ships one answers its CSV query too.
2. ``ixsmi``: Iluvatar's own, nvidia-smi-compatible.
3. ``amd-smi`` before ``rocm-smi``: the newer AMD tool where both are installed.
4. ``rocm-smi`` before ``hy-smi``: a Hygon DCU box carries both, and rocm-smi's
   JSON is well formed where some hy-smi builds drop commas.
5. Then the tools of makers that never share a machine with the others
   (Moore Threads, MetaX, Huawei Ascend, Cambricon).

UI-free and import-light: plain data, no subprocess here.
"""

from __future__ import annotations

from dataclasses import dataclass

# how telemetry reads a CLI every tick
SMI_CSV = "smi-csv"          # nvidia-smi's --query-gpu CSV (tui.telemetry.smi_csv)
VENDOR_JSON = "vendor-json"  # the vendor's own JSON (tui.telemetry.vendor_json)
VENDOR_TABLE = "vendor-table"  # the vendor's own table (or its JSON/CSV where the build has one): tui.telemetry.readers
NO_QUERY = "none"            # nothing telemetry parses; the doctor and the report still run it

# PCI vendor id -> maker, for the cards a rented instance may carry
MAKERS: dict[str, str] = {
    "0x10de": "NVIDIA",
    "0x1002": "AMD",
    "0x8086": "Intel",
    "0x1e3e": "Iluvatar CoreX",
    "0x9999": "MetaX",
    "0x1d94": "Hygon",
    "0x1ed5": "Moore Threads",
    "0xcabc": "Cambricon",
    "0x19e5": "Huawei",
    "0x1da3": "Habana Labs",
    "0x1ae0": "Google",
    # read in pciutils/pciids pci.ids (snapshot c1c12547, 2026-08-22): "1e36  Shanghai Enflame Technology Co. Ltd"
    # (T10/T11/T20/T21, I10/I20, S6/S30/S90); "1d22  Baidu Technology" lists "3684  Kunlun AI Accelerator" and
    # "3685  Kunlun2 AI Accelerator [VF]". The ids above were checked in the same file. Moffett has no vendor id there:
    # none is guessed for it.
    "0x1e36": "Enflame",
    "0x1d22": "Kunlunxin",
}


@dataclass(frozen=True)
class ManagementCli:
    exe: str
    maker: str                            # as in MAKERS, which holds its PCI vendor id(s)
    list_args: tuple[str, ...]            # the doctor: list the devices ("-L" prints "GPU n: ..." lines it counts)
    screen_args: tuple[str, ...]          # the report: its nvidia-smi-like overview, kept verbatim
    query: str = NO_QUERY                 # SMI_CSV, VENDOR_JSON, VENDOR_TABLE or NO_QUERY
    json_args: tuple[str, ...] = ()       # VENDOR_JSON: what is asked every tick
    json_static_args: tuple[str, ...] | None = None  # VENDOR_JSON: asked rarely, cached (names, limits)
    reader: str | None = None             # VENDOR_TABLE: its module under tui.telemetry.readers
    # another maker ships a tool of this name (Intel's xpu-smi): used only where the PCI bus, when it can be read
    # and shows accelerators, shows one of these vendor ids
    pci_ids: tuple[str, ...] = ()


_ROCM_SMI_FIELDS = ("--showproductname", "--showbus", "--showuse", "--showmemuse", "--showmeminfo", "vram",
                    "--showtemp", "--showpower", "--showmaxpower", "--showclocks", "--showdriverversion", "--json")

CLIS: tuple[ManagementCli, ...] = (
    ManagementCli("nvidia-smi", "NVIDIA", ("-L",), (), SMI_CSV),
    ManagementCli("ixsmi", "Iluvatar CoreX", ("-L",), (), SMI_CSV),
    ManagementCli("amd-smi", "AMD", ("list",), ("monitor",), VENDOR_JSON,
                  ("metric", "--json"), ("static", "--json")),   # ROCm 6+
    ManagementCli("rocm-smi", "AMD", ("--showproductname",), (), VENDOR_JSON, _ROCM_SMI_FIELDS),  # older ROCm
    ManagementCli("hy-smi", "Hygon", (), (), VENDOR_JSON, ("--json",)),
    ManagementCli("mthreads-gmi", "Moore Threads", (), (), VENDOR_TABLE, reader="mthreads_gmi"),
    ManagementCli("mx-smi", "MetaX", (), (), VENDOR_TABLE, reader="mx_smi"),
    ManagementCli("npu-smi", "Huawei", ("info",), ("info",), VENDOR_TABLE, reader="npu_smi"),
    ManagementCli("cnmon", "Cambricon", (), (), VENDOR_TABLE, reader="cnmon"),
    ManagementCli("efsmi", "Enflame", (), (), VENDOR_TABLE, reader="efsmi"),
    ManagementCli("xpu_smi", "Kunlunxin", (), (), VENDOR_TABLE, reader="xpu_smi"),
    # vLLM-Kunlun and FlagPerf install Kunlunxin's tool as xpu-smi, the name of Intel's data-centre tool too
    ManagementCli("xpu-smi", "Kunlunxin", (), (), VENDOR_TABLE, reader="xpu_smi", pci_ids=("0x1d22",)),
    ManagementCli("hl-smi", "Habana Labs", (), (), VENDOR_TABLE, reader="hl_smi"),
)


def fits_bus(cli: ManagementCli, bus_vendor_ids: set[str]) -> bool:
    """Whether ``cli`` is this machine's: a tool whose name another maker shares only where the bus shows its
    maker's card (an unreadable or empty bus cannot tell, and its reader refuses the other maker's output)."""
    return not cli.pci_ids or not bus_vendor_ids or any(i in bus_vendor_ids for i in cli.pci_ids)


def names(query: str | None = None) -> tuple[str, ...]:
    """The executables in table order; only those telemetry reads with ``query`` when given."""
    return tuple(c.exe for c in CLIS if query is None or c.query == query)


def by_query(query: str) -> tuple[ManagementCli, ...]:
    return tuple(c for c in CLIS if c.query == query)


def maker(pci_vendor_id: str | None) -> str | None:
    """'0x10de' -> 'NVIDIA'; an id not in the table is named as such, never guessed."""
    if pci_vendor_id is None:
        return None
    return MAKERS.get(pci_vendor_id.lower(), f"unknown vendor {pci_vendor_id.lower()}")
