"""VendorCliSource: the first vendor-table CLI on PATH, run bounded in time and size from a private folder."""

import os
import time
import types

import pytest

from fake_cli import only_on_path, write_script
from tui.telemetry import vendor_cli, vendors
from tui.telemetry.readers import ReaderError
from tui.telemetry.sample import DeviceSample
from vendor_tables import sixteen_card_tables

CLI = vendors.ManagementCli("fakesmi", "Nobody", (), (), vendors.VENDOR_TABLE, reader="fake")


def fake_reader(monkeypatch, read):
    monkeypatch.setattr(vendor_cli, "reader_module", lambda name: types.SimpleNamespace(read=read))


def test_every_vendor_table_cli_has_a_reader_module_with_read_and_exe():
    for cli in vendors.by_query(vendors.VENDOR_TABLE):
        module = vendor_cli.reader_module(cli.reader)
        assert callable(module.read)
        assert module.EXE in {c.exe for c in vendors.CLIS if c.reader == cli.reader}   # xpu-smi reads as xpu_smi


def test_the_cli_runs_from_a_private_folder_never_the_users(tmp_path, monkeypatch):
    write_script(tmp_path / "bin", "fakesmi", 'pwd; touch cnmon_info.json')
    only_on_path(monkeypatch, tmp_path / "bin")
    monkeypatch.chdir(tmp_path)
    seen = []

    def read(call):
        seen.append(call([]).stdout.strip())
        return [DeviceSample(index=0, name="card")], []

    fake_reader(monkeypatch, read)
    source = vendor_cli.VendorCliSource(clis=(CLI,))
    devices, problems = source.read()
    assert [d.source for d in devices] == ["fakesmi"] and problems == []
    assert seen[0] != str(tmp_path) and os.path.basename(seen[0]).startswith("cardbench-cli-")
    assert not (tmp_path / "cnmon_info.json").exists()
    source.close()
    assert not os.path.exists(seen[0])


def test_an_answer_past_the_bound_is_not_read_further_and_said_in_one_line(tmp_path, monkeypatch):
    # a tool gone wrong prints without end: it is killed at the bound, long before its timeout, not read whole
    write_script(tmp_path / "bin", "fakesmi", 'exec yes "| 0  910B3  | OK  | 93.1  50  0 / 0 |"')
    only_on_path(monkeypatch, tmp_path / "bin")

    def read(call):
        done = call([])
        return [], [done.problem]

    fake_reader(monkeypatch, read)
    t0 = time.monotonic()
    devices, problems = vendor_cli.VendorCliSource(clis=(CLI,), timeout=20).read()
    assert time.monotonic() - t0 < 10
    assert devices == [] and problems == ["fakesmi printed more than 4 MB, more than any card table: not read (killed)"]


def test_a_hanging_cli_costs_its_timeout_once_and_a_broken_reader_one_line(tmp_path, monkeypatch):
    write_script(tmp_path / "bin", "fakesmi", 'sleep 30')
    only_on_path(monkeypatch, tmp_path / "bin")
    fake_reader(monkeypatch, lambda call: ([], [call([]).problem]))
    t0 = time.monotonic()
    devices, problems = vendor_cli.VendorCliSource(clis=(CLI,), timeout=0.5).read()
    assert time.monotonic() - t0 < 5
    assert problems == ["fakesmi did not answer within 0.5 s (timed out, killed)"]

    def broken(call):
        raise ReaderError("half a table")

    fake_reader(monkeypatch, broken)
    assert vendor_cli.VendorCliSource(clis=(CLI,)).read() == ([], ["fakesmi: not read: ReaderError: half a table"])


def test_no_cli_on_path_is_absent_and_says_which_it_looked_for(tmp_path, monkeypatch):
    only_on_path(monkeypatch, tmp_path)
    source = vendor_cli.VendorCliSource()
    assert not source.available() and source.read() == ([], [])
    assert source.describe().startswith("no vendor CLI on PATH (mthreads-gmi, mx-smi, npu-smi, cnmon")


def test_a_form_this_build_fails_is_not_asked_again_while_the_table_answers(tmp_path, monkeypatch):
    # an older build without the JSON flag: it exits 2 on --json, and the reader falls back to the table
    log = tmp_path / "calls.log"
    write_script(tmp_path / "bin", "fakesmi", f'echo "$@" >> {log}\n[ "$1" = "--json" ] && exit 2\necho table')
    only_on_path(monkeypatch, tmp_path / "bin")

    def read(call):
        done = call(["--json"])
        if done.problem:
            done = call([])
        return ([DeviceSample(index=0)] if done.stdout.strip() == "table" else []), []

    fake_reader(monkeypatch, read)
    source = vendor_cli.VendorCliSource(clis=(CLI,))
    for _ in range(3):
        assert len(source.read()[0]) == 1
    assert log.read_text().splitlines() == ["--json", "", "", ""]


@pytest.mark.parametrize("exe", ["npu-smi", "cnmon", "efsmi", "hl-smi", "mthreads-gmi", "mx-smi", "xpu_smi"])
def test_a_sixteen_card_table_is_read_card_by_card(exe):
    # how long it takes is bench/vendor_cli_cost.py's (bound 20 ms); here: sixteen cards with their figures (the
    # made tables repeat one real card, so only npu-smi's, a real 16-card capture, has sixteen distinct cards)
    parse, text = sixteen_card_tables()[exe]
    devices = parse(text)
    assert len(devices) == 16
    assert all(d.name and d.temperature_c is not None for d in devices)
    if exe == "npu-smi":
        assert len({d.bus_id for d in devices}) == 16 and [d.index for d in devices] == list(range(16))


def _bus(root, vendor):
    d = root / "0000:4d:00.0"
    d.mkdir(parents=True)
    (d / "vendor").write_text(vendor + "\n")
    (d / "class").write_text("0x038000\n")
    (d / "device").write_text("0x3684\n")
    return str(root)


def test_an_xpu_smi_is_read_as_kunlunxins_only_beside_a_kunlunxin_card(tmp_path, monkeypatch):
    # Kunlunxin's tool is installed as xpu_smi or xpu-smi; Intel's data-centre tool is xpu-smi too
    write_script(tmp_path / "bin", "xpu-smi", "cat /dev/null")
    only_on_path(monkeypatch, tmp_path / "bin")
    intel = vendor_cli.VendorCliSource(pci_root=_bus(tmp_path / "intel", "0x8086"))
    assert not intel.available()
    kunlun = vendor_cli.VendorCliSource(pci_root=_bus(tmp_path / "kunlun", "0x1d22"))
    assert kunlun.available() and kunlun.name == "xpu-smi"
    unreadable = vendor_cli.VendorCliSource(pci_root=str(tmp_path / "no-sysfs"))   # a container: its reader decides
    assert unreadable.available()


def test_the_doctor_passes_over_intels_xpu_smi_beside_intel_cards(tmp_path, monkeypatch):
    from tui.doctor.facts import Facts, gather_cli

    write_script(tmp_path / "bin", "xpu-smi", "echo 'Intel(R) XPU System Management Interface'")
    only_on_path(monkeypatch, tmp_path / "bin")
    facts = Facts()
    gather_cli(facts, pci_root=_bus(tmp_path / "intel", "0x8086"))
    assert facts.cli_name is None


def _tool(tmp_path, monkeypatch, exe, body):
    write_script(tmp_path / "bin", exe, body)
    only_on_path(monkeypatch, tmp_path / "bin")
    return vendor_cli.VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == exe), timeout=1.0)


def test_a_json_form_answered_with_other_text_is_not_asked_again_while_the_table_answers(tmp_path, monkeypatch):
    # an older mthreads-gmi that answers --query --json with its -q text, exit 0: one process a tick after the first
    from paths import FIXTURES

    log = tmp_path / "calls.log"
    q = FIXTURES / "mthreads-gmi/mthreads-gmi-3.txt"
    table = FIXTURES / "mthreads-gmi/default-8x-s5000-2.4.1-no-processes.txt"
    source = _tool(tmp_path, monkeypatch, "mthreads-gmi",
                   f'echo "$@" >> {log}\nif [ "$1" = "--query" ]; then cat {q}; else cat {table}; fi')
    for _ in range(3):
        assert len(source.read()[0]) == 8
    assert log.read_text().splitlines() == ["--query --json", "", "", ""]


def test_cards_read_from_a_table_cut_short_are_said_to_be_maybe_not_all(tmp_path, monkeypatch):
    from paths import FIXTURES

    capture = FIXTURES / "npu-smi/info-8x910b3-26.1.0-container-pid.txt"
    flag = tmp_path / "cut"
    # whole the first time, then cut after its third card (exit 0: nothing else says it was cut)
    source = _tool(tmp_path, monkeypatch, "npu-smi",
                   f'if [ -e {flag} ]; then head -n 15 {capture}; exit 0; fi\ncat {capture}')
    devices, problems = source.read()
    assert len(devices) == 8 and problems == []
    flag.touch()
    devices, problems = source.read()
    assert len(devices) == 3
    assert problems == ["npu-smi listed 3 card(s), 8 before: output cut short?"]
