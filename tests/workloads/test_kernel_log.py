"""One reader of the kernel log (issue 23.4): the soak's new Xid lines and the report's Xid table read dmesg the
same way, dated where dmesg can date its lines."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from paths import FIXTURES

from tui.report import xid
from workloads.kernel_log import read_dmesg, stamp, xid_lines

CTIME_LOG = FIXTURES / "dmesg-xid" / "dmesg-ctime-xid13-xid109-2024-08-30.txt"


def _dmesg(bin_dir: Path, body: str) -> None:
    script = bin_dir / "dmesg"
    script.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def _on_path(monkeypatch, folder: Path) -> None:
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_stamps_of_both_dated_forms_read_as_utc():
    assert stamp("2024-08-30T11:43:14,123456+00:00 NVRM: Xid (PCI:0000:cb:00): 109, ...") == 1725018194.123456
    assert stamp("2024-08-30T13:43:14.5+02:00 x") == 1725018194.5
    assert stamp("[Fri Aug 30 11:43:14 2024] NVRM: Xid") == 1725018194.0
    assert stamp("[12345.678] NVRM: Xid") is None


def test_an_older_dmesg_is_asked_with_minus_t_and_the_report_shows_utc(tmp_path, monkeypatch):
    # refuses --time-format=iso, as util-linux before 2.24 does; answers -T
    _dmesg(tmp_path, f"if sys.argv[1:] == ['--time-format=iso']: sys.exit(1)\n"
                     f"sys.stdout.write(open({str(CTIME_LOG)!r}).read())")
    _on_path(monkeypatch, tmp_path)
    log = read_dmesg()
    assert log.dated and log.problem is None
    assert [code for code, _where, _line in xid_lines(log.text)] == [13, 13, 13, 109]
    report = xid.read_kernel_log()
    assert report.readable and report.note == xid.READ_UTC
    assert report.counts == {13: 3, 109: 1}
    assert report.events[-1][1].startswith("2024-08-30 11:43:14 UTC NVRM: Xid (PCI:0000:cb:00): 109,")


def test_a_log_that_cannot_be_read_is_said_with_dmesg_s_words(tmp_path, monkeypatch):
    _dmesg(tmp_path, "sys.stderr.write('dmesg: read kernel buffer failed: Operation not permitted\\n'); sys.exit(1)")
    _on_path(monkeypatch, tmp_path)
    report = xid.read_kernel_log()
    assert not report.readable
    assert "dmesg: read kernel buffer failed: Operation not permitted" in report.note.en


def test_no_dmesg_at_all(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert read_dmesg().problem == "dmesg is not available"
    assert xid.read_kernel_log().note == xid.NO_DMESG
