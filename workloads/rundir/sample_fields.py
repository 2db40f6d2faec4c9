"""A telemetry.jsonl line's field names, spelled once. Torch- and UI-free: the run store, the report and the
workbench (tui/) and the workloads that read their own run's samples (the soak, serve) take them from here.

A line is one sample: ``{T: unix time, DEVICES: [a device's readings...], HOST: {...}, ERRORS: [...],
SOURCES: [...]}``; the export's device snapshot (`cardbench devices --json`) has the same shape. A reading absent from a device is not available (N/A), never zero. The typed form of a line
is tui.telemetry.sample's ``Sample`` / ``DeviceSample`` / ``HostSample``, whose attributes are these names
(tests/workloads/rundir/test_sample_fields.py holds the two together).
"""

from __future__ import annotations

# the line
T, DEVICES, HOST, ERRORS, SOURCES = "t", "devices", "host", "errors", "sources"

# a device: who it is
INDEX, NAME, BUS_ID, PCI_VENDOR = "index", "name", "bus_id", "pci_vendor"
# a device: its state in words
PSTATE, HEALTH, THROTTLE_REASONS = "pstate", "health", "throttle_reasons"
# a device: its readings (units in the names)
UTIL_GPU_PCT, UTIL_MEM_PCT = "util_gpu_pct", "util_mem_pct"
MEM_USED_BYTES, MEM_TOTAL_BYTES = "mem_used_bytes", "mem_total_bytes"
TEMPERATURE_C, POWER_W, POWER_LIMIT_W = "temperature_c", "power_w", "power_limit_w"
SM_CLOCK_MHZ, MEM_CLOCK_MHZ = "sm_clock_mhz", "mem_clock_mhz"
# a device: error counters and violation times, cumulative since the driver loaded
ECC_CORRECTED, ECC_UNCORRECTED = "ecc_corrected", "ecc_uncorrected"
RETIRED_PAGES, REMAPPED_ROWS, PCIE_REPLAYS = "retired_pages", "remapped_rows", "pcie_replays"
POWER_VIOLATION_S, THERMAL_VIOLATION_S = "power_violation_s", "thermal_violation_s"
# a device: what the report's tables and the workbench read besides (issue 35 item 1d): who it is to its tool,
# what its utilisation counts, whose processes hold it and which source(s) read it
PCI_VENDOR_ID, DRIVER_VERSION, RUNTIME_VERSION = "pci_vendor_id", "driver_version", "runtime_version"
UTIL_KIND, PROCESSES, SOURCE = "util_kind", "processes", "source"

# the host (MEM_USED_BYTES and MEM_TOTAL_BYTES are its memory's too)
CPU_PCT = "cpu_pct"
# the host: what the report's tables and the workbench read besides (issue 35 item 1d)
HOSTNAME, CPU_COUNT, PER_CORE_PCT = "hostname", "cpu_count", "per_core_pct"
# the host: whether the run had it to itself (issue 36 item 2): the 1-minute load average, and the cores other
# processes than cardbench's used over the tick
LOAD1, OTHER_CPU_CORES = "load1", "other_cpu_cores"

# the readings a run's samples are read back for (the report, the charts, the plots): floats, and the byte and
# count fields as ints; the other fields are never read from disk
FLOAT_FIELDS = (UTIL_GPU_PCT, UTIL_MEM_PCT, TEMPERATURE_C, POWER_W, POWER_LIMIT_W, SM_CLOCK_MHZ, MEM_CLOCK_MHZ)
INT_FIELDS = (MEM_USED_BYTES, MEM_TOTAL_BYTES, ECC_CORRECTED, ECC_UNCORRECTED, RETIRED_PAGES, REMAPPED_ROWS)
READ_DEVICE = (INDEX, NAME, BUS_ID, PCI_VENDOR, PSTATE, HEALTH, THROTTLE_REASONS, *FLOAT_FIELDS, *INT_FIELDS)
READ_HOST = (CPU_PCT, MEM_USED_BYTES, MEM_TOTAL_BYTES)
# the counters whose change over an interval a soak reports
COUNTERS = (ECC_CORRECTED, ECC_UNCORRECTED, REMAPPED_ROWS, RETIRED_PAGES, PCIE_REPLAYS, POWER_VIOLATION_S,
            THERMAL_VIOLATION_S)
