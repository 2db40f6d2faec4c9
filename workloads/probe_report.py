"""The probe's answer (`python -m workloads.child.probe [--doctor | --tensorflow]`), as typed records.

The probe child writes one JSON object built from :class:`ProbeReport`; the
doctor, the telemetry's torch source and the report read it back through
:meth:`ProbeReport.from_dict`, so the keys live here and nowhere else.

Reading is forgiving, as for the events in ``workloads.protocol``: a missing
key is the field's default (None, empty), a key this version does not know is
kept in ``extra``, and a value of the wrong shape is dropped rather than
raising (a newer or broken child must never take the doctor down). Writing
always emits every field, so a reader can rely on a key being there even when
its value is null (a CPU machine has no init time, but it has the key).

Torch-free: the UI process imports this.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from workloads.facts.missing import finite_or_none

T = TypeVar("T", bound="_Record")


@dataclass
class _Record:
    """to_dict / from_dict shared by every record; ``extra`` keeps keys this version does not know."""

    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name != "extra":
                out[f.name] = _plain(getattr(self, f.name))
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls: type[T], data: Any) -> T:
        if not isinstance(data, dict):
            return cls()
        known = {f.name for f in fields(cls)} - {"extra"}
        kwargs = {k: v for k, v in data.items() if k in known}
        extra = {str(k): v for k, v in data.items() if k not in known}
        for key, value in list(kwargs.items()):
            kwargs[key] = cls._read(key, value)
        return cls(**kwargs, extra=extra)

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        """One field's JSON value -> its typed value; subclasses convert their nested records."""
        return value


def _plain(value: Any) -> Any:
    if isinstance(value, _Record):
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _number(value: Any) -> float | None:
    figure = finite_or_none(value)   # a probe's NaN (JSON lets it through) is no figure either
    return None if figure is None else float(figure)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass
class DeviceType(_Record):
    """One torch device type (``torch.cuda``, ``torch.npu``...): is it available, how many, or why not."""

    available: bool = False
    count: int | None = None
    error: str | None = None

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if key == "available":
            return bool(value)
        if key == "count":
            return int(value) if _number(value) is not None else None
        return _text(value)


@dataclass
class ProbeDevice(_Record):
    """One device as torch sees it; static facts only (no CUDA context is created for them)."""

    type: str = ""
    index: int = 0
    name: str | None = None
    total_memory: int | None = None      # bytes
    capability: str | None = None        # "9.0"; a ROCm build reports a made-up one, see ``arch``
    arch: str | None = None              # the gfx target on ROCm ("gfx90a")
    multi_processor_count: int | None = None
    bus_id: str | None = None
    error: str | None = None

    @property
    def target(self) -> str | None:
        """What the build's arch list must cover: the gfx target where there is one, else the capability."""
        return self.arch or self.capability

    @property
    def label(self) -> str:
        return f"{self.type}:{self.index}"

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if key in ("index", "total_memory", "multi_processor_count"):
            number = _number(value)
            return int(number) if number is not None else (0 if key == "index" else None)
        return str(value) if key == "type" else _text(value)


@dataclass
class DeviceCheck(_Record):
    """One ``--doctor`` test run on the first device; the fields a test does not measure stay None."""

    ok: bool = False
    error: str | None = None
    seconds: float | None = None       # init: first context and first allocation
    max_abs_err: float | None = None   # kernel: against the CPU
    dtype: str | None = None           # autocast: the output's dtype

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if key == "ok":
            return bool(value)
        if key in ("seconds", "max_abs_err"):
            return _number(value)
        return _text(value)


@dataclass
class DeviceMemory(_Record):
    """``mem_get_info`` on the first device, in bytes, or why it failed."""

    free: int | None = None
    total: int | None = None
    error: str | None = None

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if key == "error":
            return _text(value)
        number = _number(value)
        return int(number) if number is not None else None


@dataclass
class DeviceChecks(_Record):
    """``--doctor``'s tests on the first device torch sees; None where a test did not run.

    After a failed ``init`` nothing else runs; with no device nothing runs at all.
    """

    init: DeviceCheck | None = None
    memory: DeviceMemory | None = None
    kernel: DeviceCheck | None = None
    autocast_fp16: DeviceCheck | None = None
    autocast_bf16: DeviceCheck | None = None

    def autocast(self, label: str) -> DeviceCheck | None:
        return {"fp16": self.autocast_fp16, "bf16": self.autocast_bf16}.get(label)

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if not isinstance(value, dict):
            return None
        return DeviceMemory.from_dict(value) if key == "memory" else DeviceCheck.from_dict(value)


@dataclass
class ProbeReport(_Record):
    """Everything one probe run says. A plain run fills the torch part; ``--doctor`` adds ``checks``;
    ``--tensorflow`` fills only the TensorFlow part (it runs in its own child, never beside torch)."""

    python: str | None = None
    executable: str | None = None
    # torch: version and build, or why it did not import
    torch: str | None = None
    torch_error: str | None = None
    import_s: float | None = None
    cuda: str | None = None              # the CUDA version torch was built for
    hip: str | None = None               # the ROCm/HIP version torch was built for
    extensions: dict[str, str] = field(default_factory=dict)       # module -> "loaded" or its import error
    device_types: dict[str, DeviceType] = field(default_factory=dict)
    devices: list[ProbeDevice] = field(default_factory=list)
    arch_list: dict[str, list[str] | str] = field(default_factory=dict)  # type -> the build's archs, or the error
    checks: DeviceChecks | None = None   # --doctor only
    # TensorFlow (--tensorflow)
    tensorflow: str | None = None
    tensorflow_gpus: list[str] = field(default_factory=list)
    tensorflow_error: str | None = None
    # the probe itself broke (a bug, not a finding)
    probe_error: str | None = None

    def archs(self, device_type: str) -> list[str]:
        """The build's arch list for a device type; [] where it has none or could not say."""
        value = self.arch_list.get(device_type)
        return value if isinstance(value, list) else []

    def device_type_error(self) -> str | None:
        """The first reason a device type gave for being unavailable ("Found no NVIDIA driver...")."""
        return next((t.error for t in self.device_types.values() if t.error), None)

    @classmethod
    def _read(cls, key: str, value: Any) -> Any:
        if key == "extensions":
            return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
        if key == "device_types":
            return {str(k): DeviceType.from_dict(v) for k, v in value.items()} if isinstance(value, dict) else {}
        if key == "devices":
            return [ProbeDevice.from_dict(d) for d in value if isinstance(d, dict)] if isinstance(value, list) else []
        if key == "arch_list":
            if not isinstance(value, dict):
                return {}
            return {str(k): [str(a) for a in v] if isinstance(v, list) else str(v) for k, v in value.items()}
        if key == "checks":
            return DeviceChecks.from_dict(value) if isinstance(value, dict) else None
        if key == "tensorflow_gpus":
            return [str(g) for g in value] if isinstance(value, list) else []
        if key == "import_s":
            return _number(value)
        return _text(value)
