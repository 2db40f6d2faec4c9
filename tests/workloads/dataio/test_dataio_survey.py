"""Where the data lives and what it holds: mountinfo read right, loops and broken links counted, bad DIRs one line."""

from __future__ import annotations

import os

import pytest

from workloads.dataio import mounts, quick, survey

MOUNTINFO = """\
22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
30 22 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683664k
40 22 0:50 / /mnt/my\\040data rw,relatime shared:9 - nfs4 server:/export rw,vers=4.2
41 22 0:51 / /mnt/bucket rw - fuse.s3fs s3fs rw,user_id=0
42 22 259:0 / /nvme rw - xfs /dev/nvme0n1p1 rw
43 22 0:60 / /var/lib/docker/overlay2/merged rw - overlay overlay rw,lowerdir=/a
garbage line
"""


def test_mountinfo_gives_the_mount_of_a_path_by_its_longest_mount_point():
    found = mounts.parse(MOUNTINFO)
    assert len(found) == 6   # the garbage line is skipped
    assert mounts.mount_of("/mnt/my data/train", found).kind == "network"     # \040 is a space
    assert mounts.mount_of("/mnt/bucket/x", found).kind == "fuse"
    assert mounts.mount_of("/mnt/other", found).fs_type == "ext4"
    assert mounts.mount_of("/dev/shm/a", found).kind == "memory"
    assert "local NVMe" in mounts.mount_of("/nvme/imagenet", found).describe()
    assert "overlay" in mounts.mount_of("/var/lib/docker/overlay2/merged/x", found).describe()
    assert "cloud volume" in mounts.mount_of("/home", found).describe()


def _jpeg(path, data=b"\xff\xd8\xff" + b"x" * 100):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_a_symlink_loop_and_a_broken_link_are_counted_skips_and_every_image_counted(tmp_path):
    for i in range(5):
        _jpeg(tmp_path / "a" / f"{i}.jpg")
    (tmp_path / "a" / "notes.txt").write_text("not an image")
    os.symlink(tmp_path, tmp_path / "a" / "loop")          # a folder link back up the tree
    os.symlink(tmp_path / "gone.jpg", tmp_path / "a" / "broken.jpg")
    s = survey.survey(str(tmp_path))
    assert (s.images, s.files, s.loops, s.unreadable, s.complete) == (5, 6, 1, 1, True)
    assert len(s.sample) == 5 and s.sizes()["median"] == 103
    line = survey.describe(s)
    assert "5 image file(s) of 6" in line and "1 link loop(s) skipped" in line and "1 unreadable skipped" in line


def test_a_big_tree_is_sampled_and_says_so(tmp_path):
    for d in range(4):
        for i in range(10):
            _jpeg(tmp_path / f"d{d}" / f"{i}.jpg")
    s = survey.survey(str(tmp_path), max_entries=15, sample_size=8)
    assert not s.complete and 10 <= s.images < 40 and len(s.sample) == 8
    assert "at least" in survey.describe(s) and "a sample" in survey.describe(s)


@pytest.mark.parametrize("make, said", [
    (lambda p: p / "missing", "does not exist"),
    (lambda p: (p / "f").write_text("x") and p / "f", "is not a directory"),
    (lambda p: p, "holds no image files"),
])
def test_a_dir_that_cannot_be_used_is_one_line(tmp_path, make, said):
    with pytest.raises(survey.NoData) as caught:
        survey.survey(str(make(tmp_path)))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_the_doctors_quick_check_passes_fails_and_warns(tmp_path, monkeypatch):
    for i in range(3):
        _jpeg(tmp_path / "ok" / f"{i}.jpg")
    ok = quick.check(str(tmp_path / "ok"))
    assert ok["status"] in ("PASS", "WARN") and "3 image file(s)" in ok["evidence"] and ok["unit"] == "files/s"
    assert ok["zh"]["evidence"]
    missing = quick.check(str(tmp_path / "nope"))
    assert missing["status"] == "FAIL" and "does not exist" in missing["evidence"] and missing["zh"]["hint"]
    os.symlink(tmp_path / "ok", tmp_path / "ok" / "loop")
    looped = quick.check(str(tmp_path / "ok"))
    assert looped["status"] == "WARN" and "link loop" in looped["hint"] and "cardbench run dataio" in looped["hint"]
    monkeypatch.setattr(mounts.Mount, "kind", property(lambda self: "network"))
    assert quick.check(str(tmp_path / "ok"))["status"] == "WARN"
