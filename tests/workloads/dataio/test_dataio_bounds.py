"""Data sets someone else made cost bounded memory and time: a round of large images is decoded within a pixel
budget, a file larger than any image can be is skipped and said, a read stops at its time cap inside a file.

The end-to-end runs are children under an address-space limit set over their own baseline (torch's libraries
map ~3.4 GB of address space before anything is read), so a regression ends in MemoryError at once instead of
taking the machine's memory."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zlib

import pytest
from paths import REPO

pytest.importorskip("torchvision")
from PIL import Image

from workloads.dataio import decode, images, storage, survey

SMALL = ["--seconds", "0.2", "--max-workers", "1", "--batch-size", "4", "--device", "cpu", "--consumer-rate", "2"]

# the child imports what dataio imports, reads its own address space, then limits itself to that plus HEADROOM
LIMITED = """
import resource, runpy, sys
import psutil, torch, torchvision.io, torch.utils.data, PIL.Image, PIL.PngImagePlugin, PIL.JpegImagePlugin
import workloads.dataio.cli, workloads.dataio.decode, workloads.dataio.loader, workloads.vision.transforms
torch.ones(1 << 16).sum()   # the intra-op threads start before the baseline is read
with open('/proc/self/status') as status:
    vm = next(int(line.split()[1]) * 1024 for line in status if line.startswith('VmSize:'))
limit = vm + int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ['workloads.dataio', *sys.argv[2:]]
runpy.run_module('workloads.dataio', run_name='__main__', alter_sys=True)
"""
HEADROOM = 640 << 20   # the round of 64 x 4 M pixels now takes ~390 MB over the baseline; held whole, MemoryError


def _run_limited(*args: str, timeout: float = 60) -> tuple[int, list[dict], str]:
    # one malloc arena per thread reserves 64 MB of address space: fewer threads and arenas keep the baseline the
    # same on a host with many cores
    env = {**os.environ, "CARDBENCH_RUNS_DIR": "/nonexistent-runs", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    env.pop("CARDBENCH_RUN_DIR", None)
    done = subprocess.run([sys.executable, "-c", LIMITED, str(HEADROOM), *args], check=False, cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def _grey_png(width: int, height: int) -> bytes:
    """A one-colour PNG, compressed row by row: a few KB on disk, width x height pixels decoded."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    squeeze = zlib.compressobj(9)
    row = b"\x00" + b"\x80" * width
    idat = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _jpeg(path) -> None:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 200)).save(out, "JPEG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())


def _sparse(path, size: int) -> None:
    """A file of ``size`` bytes on no disk (a hole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)


def test_a_round_of_large_images_is_decoded_within_a_pixel_budget(tmp_path):
    # 64 images of 4 M pixels: 768 MB as RGB if a round held them all, over the child's headroom
    data = tmp_path / "data"
    data.mkdir()
    png = _grey_png(2000, 2000)
    for i in range(64):
        (data / f"{i:02d}.png").write_bytes(png)
    code, events, stderr = _run_limited("--data", str(data), *SMALL)
    assert code == 0 and "Traceback" not in stderr and "MemoryError" not in stderr, stderr[-3000:]
    m = events[-2]["metrics"]
    held = decode.ROUND_PIXELS // (2000 * 2000)
    assert m["decode_files"] == held and m["pil_per_core"] > 0 and m["transforms_per_core"] > 0
    said = next(line for line in stderr.splitlines() if line.startswith("dataio: part 3/5 done: "))
    assert said.endswith(f"(a round of {held} of 64 file(s): at most {decode.ROUND_PIXELS / 1e6:.0f} M pixels "
                         f"decoded at once)"), said
    assert not [e for e in events if e["event"] == "warning"]   # nothing skipped: the others are just not in it
    assert all(r["images_per_s"] for r in m["loader"])


def test_files_larger_than_any_image_are_skipped_and_said(tmp_path):
    data = tmp_path / "data"
    for i in range(3):
        _jpeg(data / f"{i}.jpg")
    _sparse(data / "big.jpg", 3 << 30)
    _sparse(data / "huge.jpg", 1 << 40)
    code, events, stderr = _run_limited("--data", str(data), *SMALL)
    assert code == 0 and "Traceback" not in stderr, stderr[-3000:]
    warned = [e["message"] for e in events if e["event"] == "warning"]
    said = f"2 file(s) larger than any image can be (over {images.MAX_FILE_BYTES >> 20} MiB) skipped in {data} (e.g. "
    assert len(warned) == 1 and warned[0].startswith(said), warned
    assert sorted(warned[0][len(said):-1].split(", ")) == ["big.jpg", "huge.jpg"]   # in the order the folder lists
    survey_line = next(line for line in stderr.splitlines() if line.startswith("dataio: part 1/5 done: "))
    assert survey_line.endswith("; 2 larger than any image can be (over 768 MiB) skipped"), survey_line
    m = events[-2]["metrics"]
    assert m["images"] == 3 and m["oversize"] == 2 and m["decode_files"] == 3


def test_a_folder_of_nothing_but_oversized_files_is_one_line(tmp_path):
    _sparse(tmp_path / "huge.jpg", 1 << 40)
    with pytest.raises(survey.NoData) as caught:
        survey.survey(str(tmp_path))
    assert str(caught.value) == (f"data directory {tmp_path} holds no image files (0 other file(s); 1 larger than "
                                 f"any image can be (over {images.MAX_FILE_BYTES >> 20} MiB) skipped)")


def test_a_read_stops_at_its_time_cap_inside_a_file(tmp_path):
    big = tmp_path / "big.jpg"
    _sparse(big, 512 << 20)
    ticks = iter(range(10**6))
    clock = lambda: next(ticks) * 0.01   # 10 ms a look: the 0.05 s cap passes after a few chunks
    read = storage.read_files([(str(big), 512 << 20)], 0.05, clock=clock)
    assert 0 < read["bytes"] <= 8 * storage.CHUNK and read["files"] == 0 and read["failed"] == 0


def test_an_image_file_over_the_cap_is_never_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(images, "MAX_FILE_BYTES", 1 << 20, raising=False)
    big = tmp_path / "big.jpg"
    _sparse(big, 3 << 20)
    problems = images.Problems()
    assert images.read_bytes(str(big), problems) is None
    assert problems.counts == {"oversize": 1} and "larger than any image can be" in problems.describe()
    with open(big, "rb", buffering=0) as handle:   # it grew after its stat said 10 bytes: read to the cap, no more
        assert images._read_capped(handle, 10, 1 << 20) is None and handle.tell() == (1 << 20) + 1
