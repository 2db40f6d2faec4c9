"""The weights' pages dropped before a cold start's read, and the state said from a measurement: fakes for a
filesystem that refuses posix_fadvise, a cache that keeps pages, no mincore; the real calls on a written file."""

import errno
import os

import pytest

from workloads.cold_start import page_cache
from workloads.cold_start.page_cache import COLD, WARM, drop, resident_share, warm


def _refused(path):
    raise OSError(errno.EOPNOTSUPP, "Operation not supported")


def _no_root():
    return "not root"


def _disk(path):
    return None   # on a disk, whatever the test machine's /tmp is


def test_a_filesystem_that_refuses_fadvise_is_a_warm_read_with_the_reason(tmp_path):
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"x" * 10000)
    state = drop([f], advise=_refused, drop_all=_no_root, measure=lambda paths: 1.0, in_memory=_disk)
    assert state.state == WARM
    assert state.reason == ("the page cache could not be dropped (posix_fadvise refused on model.safetensors: "
                            "[Errno 95] Operation not supported; drop_caches: not root); 100.0 % of the bytes in the "
                            "page cache before the read (mincore)")
    assert (state.how, state.resident) == ("refused", 1.0)


def test_fadvise_refused_and_nothing_to_count_with_is_warm_not_a_guess(tmp_path):
    f = tmp_path / "w.pt"
    f.write_bytes(b"x")
    state = drop([f], advise=_refused, drop_all=_no_root, measure=lambda paths: None, in_memory=_disk)
    assert state.state == WARM and state.reason.startswith("the page cache could not be dropped (posix_fadvise ")
    assert "N/A of the bytes" in state.reason   # not counted: no share is made up


def test_pages_fadvise_leaves_are_dropped_by_drop_caches_where_root_may(tmp_path):
    f = tmp_path / "w.pt"
    f.write_bytes(b"x")
    shares, dropped = iter([0.8, 0.0]), []
    state = drop([f], advise=lambda p: None, drop_all=lambda: dropped.append(1), measure=lambda paths: next(shares),
                 in_memory=_disk)
    assert dropped == [1] and state.state == COLD and "/proc/sys/vm/drop_caches" in state.reason


def test_a_drop_that_is_accepted_but_not_countable_says_so(tmp_path):
    f = tmp_path / "w.pt"
    f.write_bytes(b"x")
    state = drop([f], advise=lambda p: None, drop_all=_no_root, measure=lambda paths: None, in_memory=_disk)
    assert state.state == COLD and "not verified" in state.reason


def test_a_file_on_tmpfs_is_a_warm_read_and_nothing_is_dropped(tmp_path):
    f = tmp_path / "w.pt"
    f.write_bytes(b"x")
    state = drop([f], advise=lambda p: pytest.fail("no advice for memory"), drop_all=lambda: pytest.fail("no drop"),
                 in_memory=lambda path: "tmpfs")
    assert state.state == WARM and state.reason == ("the weights are memory already (w.pt is on tmpfs): there is no "
                                                    "storage to read from")


def test_the_real_calls_drop_a_written_file_and_mincore_counts_it(tmp_path):
    if not os.path.exists("/proc/mounts") or page_cache.memory_filesystem(tmp_path) is not None:
        pytest.skip("needs Linux and a disk-backed temporary directory: tmpfs pages cannot be dropped")
    f = tmp_path / "preset_weights.pt"
    f.write_bytes(os.urandom(4 << 20))   # not flushed: drop() flushes before it advises
    assert warm([f]).state == WARM and resident_share([f]) > 0.9   # read once: in memory
    state = drop([f], drop_all=lambda: pytest.fail("posix_fadvise was enough; the machine's cache stays"))
    assert state.state == COLD and "posix_fadvise" in state.reason
    assert resident_share([f]) <= page_cache.COLD_AT


def test_proc_mounts_names_the_filesystem_of_a_memory_backed_path():
    if not os.path.exists("/dev/shm") or not os.path.exists("/proc/mounts"):
        pytest.skip("no /dev/shm here")
    assert page_cache.memory_filesystem("/dev/shm") == "tmpfs"


def test_an_empty_file_counts_as_nothing_resident(tmp_path):
    f = tmp_path / "empty"
    f.write_bytes(b"")
    assert resident_share([f]) == 0.0
