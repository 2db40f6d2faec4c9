"""Bad images are counted by kind, never raised: a PNG named .jpg, a truncated JPEG, a decompression bomb."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("PIL")
from PIL import Image

from workloads.dataio import images, makedata


def _encoded(fmt: str, size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(out, fmt)
    return out.getvalue()


def test_each_bad_kind_is_counted_and_a_good_jpeg_decodes(tmp_path, monkeypatch):
    problems = images.Problems()
    good = images.open_rgb(_encoded("JPEG"), "good.jpg", problems)
    assert good.size == (40, 30) and problems.counts == {}
    png = images.open_rgb(_encoded("PNG"), "png.jpg", problems)
    assert png is not None and problems.counts == {"misnamed": 1}   # PIL decodes it; a JPEG decoder would not
    assert images.open_rgb(_encoded("JPEG")[:200], "cut.jpg", problems) is None
    assert images.open_rgb(b"not an image at all", "junk.jpg", problems) is None
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)   # 40 x 30 = 1200 pixels: a bomb under this limit
    assert images.open_rgb(_encoded("JPEG"), "bomb.jpg", problems) is None
    assert problems.counts == {"misnamed": 1, "truncated": 2, "huge": 1}
    assert "1 over PIL's decompression-bomb limit (skipped) (e.g. bomb.jpg)" in problems.describe()
    assert images.load_rgb(str(tmp_path / "gone.jpg"), problems) is None and problems.counts["unreadable"] == 1


def test_made_data_is_real_jpegs_of_imagenet_sizes_and_a_full_disk_is_one_line(tmp_path, monkeypatch):
    folder = makedata.make(4, str(tmp_path))
    files = sorted(folder.rglob("*.jpg"))
    assert len(files) == 4 and {f.parent.name for f in files} == set(makedata.CLASSES)
    for f in files:
        with Image.open(f) as im:
            assert im.format == "JPEG" and all(makedata.SIDES[0] <= s <= makedata.SIDES[1] for s in im.size)
    makedata.remove(folder)
    assert list(tmp_path.iterdir()) == []

    def full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Image.Image, "save", full)
    with pytest.raises(makedata.NoRoom) as caught:
        makedata.make(3, str(tmp_path))
    said = str(caught.value)
    assert said.startswith(f"cannot write the made data in {tmp_path}: the disk is full (") and "MB free" in said
    assert list(tmp_path.iterdir()) == []   # the half-made folder is gone


def test_a_stop_while_making_leaves_no_folder(tmp_path, monkeypatch):
    def stopped(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", stopped)
    with pytest.raises(KeyboardInterrupt):
        makedata.make(3, str(tmp_path))
    assert list(tmp_path.iterdir()) == []
