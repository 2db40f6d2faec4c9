"""Issue 37 item 5: a run directory someone else wrote (its name, workload, warnings, step units, error texts,
device and telemetry) reaches the workbench's screen without a sequence a terminal obeys: ESC ]0; retitles the
window, ESC [2J clears it, ESC ]52; writes the clipboard, and Rich strips BEL, BS and CR but not ESC. The rule
is `workloads.safe_text`'s, the one `cardbench run command` applies to a job's output."""

from __future__ import annotations

import json
import time

from rich.text import Text

from app_fakes import FROZEN_T, fake_sample, frozen_clock
from tui.workbench.app import build_app
from tui.cpu_trap import CODE as CPU_TRAP
from tui.figures import event_line
from tui.workbench.panes.confirm import Confirm
from tui.workbench.panes.live_runs import LiveRunsScreen
from tui.store import load_run
from tui.store.live import LiveRun
from tui.telemetry.sample import Sample
from workloads import protocol

# retitle, clear, clipboard, a C1 CSI, a bidirectional override, and markup Textual would read as styles
BAD = "x\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07\x9b31m\u202e[bold red]y"
OBEYED = ("\x1b", "\x07", "\x9b", "\u202e")


def _hostile_run(root, workload=BAD):
    """A run directory written by hand, as another user (or a crafted download) could leave it."""
    run = root / f"20260101-000000-{workload}-dead"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"workload": workload, "args": ["--tokens", BAD, "--device", BAD]}))
    t = FROZEN_T
    events = [{"event": "start", "t": t, "workload": workload, "device": f"cuda:0 {BAD}", "config": {"note": BAD},
               "versions": {"torch": BAD}},
              *({"event": "step", "t": t + i, "step": i, "total_steps": 9, "throughput": 10.0 + i, "unit": f"{BAD}/s",
                 "counts": BAD, "loss": 1.0 / i} for i in range(1, 6)),
              {"event": "fallback", "t": t + 6, "error": BAD, "action": BAD, "layer": BAD, "op": BAD},
              {"event": "warning", "t": t + 6, "message": f"warned {BAD}"},
              {"event": "warning", "t": t + 6, "message": f"on the CPU {BAD} Hint: {BAD}", "code": CPU_TRAP,
               "workload": BAD, "accelerators": 1, "hint": BAD},
              {"event": "result", "t": t + 7, "metrics": {BAD: BAD, "images_per_s": 1.0, "precision": BAD}},
              {"event": "error", "t": t + 8, "message": f"failed {BAD}", "hint": f"hint {BAD}"},
              {"event": "end", "t": t + 9, "status": BAD, "exit_code": 1}]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    sample = fake_sample(0).to_dict()
    sample["host"]["hostname"] = BAD
    sample["devices"][0]["name"] = BAD
    (run / "telemetry.jsonl").write_text(json.dumps(sample) + "\n")
    (run / "run.log").write_text(f"a line {BAD}\n")
    return run


def _shown(app) -> str:
    """What the workbench would put on the terminal: the screen (as its SVG export renders every segment), the
    log's lines that scrolled out of view, the title and the notifications."""
    parts = [app.export_screenshot(), app.title, app.sub_title]
    parts += ["".join(segment.text for segment in strip) for strip in app.log_pane.lines]
    parts += [f"{n.title} {n.message}" for n in app._notifications]
    return "\n".join(parts)


def _obeyed(text: str) -> list[str]:
    return [c for c in OBEYED if c in text]


async def test_a_hostile_run_directory_reaches_no_widget_raw(tmp_path):
    runs = tmp_path / "runs"
    path = _hostile_run(runs)
    record = load_run(path)
    app = build_app(runs, start_sampler=False, clock=frozen_clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        # reopened from disk (the screenshot's path), then its events as an attached run's arrive
        app.load_records([record])
        for event in record.events:
            app.poller.put_event(record.id, event, wake=True)
        app.history.add_sample_line(record.telemetry[0])
        app.post_sample(Sample.from_dict(record.telemetry[0]))   # its device name and host on the devices pane
        await pilot.pause()
        app.plots.refresh_plots()
        await pilot.pause()
        shown = _shown(app)
        assert not _obeyed(shown), shown
        assert "pwned" not in shown and "ZWNobyBoaQ" not in shown   # the sequences went whole
        assert "warned x[bold red]y" in "\n".join(app.log_pane.lines_text)   # what is printable of the text stays
        # the list of runs in progress (r) and the question before a stop (s)
        live = LiveRun(path=path, pid=1, pgid=1, started=time.time(), detached=True, child_pid=None, workload=BAD,
                       beat=time.time())
        app.push_screen(LiveRunsScreen([live]))
        await pilot.pause()
        assert not _obeyed(_shown(app))
        app.pop_screen()
        app.runs_in_progress.ask_stop(live)   # pid 1 is not the run's: said in the log, or asked about
        await pilot.pause()
        assert not _obeyed(_shown(app))
        if not isinstance(app.screen, Confirm):
            app.push_screen(Confirm(f"Stop {live.workload} {live.id} (pid {live.pid})?"))
            await pilot.pause()
        assert not _obeyed(_shown(app)) and not _obeyed(app.screen.question)
        app.pop_screen()
        # attached to, as Enter in that list does: read from disk, then followed
        app.runs_in_progress.attach(live)
        for _ in range(200):
            if app.attached is not None:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert app.attached is not None and app.state.run_id == live.id
        assert not _obeyed(_shown(app))
        app.runs_in_progress.unfollow()
        # a run of a workload this build has: its arguments fill the launcher's fields
        app.load_records([load_run(_hostile_run(tmp_path / "more", "generate"))])
        await pilot.pause()
        assert app.selected_workload == "generate" and app.cpu_banner.display
        assert not _obeyed(_shown(app))


def test_an_events_line_for_the_terminal_and_run_log_is_printable():
    for event in (protocol.WorkloadWarning(message=BAD), protocol.Error(message=BAD, hint=BAD),
                  protocol.Fallback(error=BAD, action=BAD), protocol.End(status=BAD),
                  protocol.Start(workload=BAD, device=BAD, config={"a": BAD})):
        assert not _obeyed(event_line(event, None)), event
    assert not _obeyed(event_line(protocol.Result(metrics={BAD: BAD}), "resnet50"))


def test_a_styled_line_keeps_its_styles_and_loses_its_escapes():
    from tui.workbench.panes.safe import shown

    text = Text.assemble(("ok ", "bold"), (f"warned {BAD}", "yellow"), " end", style="italic")
    safe = shown(text)
    # Rich took the BEL that ended the OSC when the Text was made: the rest of its piece goes as the terminal's
    # (a string is made printable before it is a Text where the workbench can: `tui.workbench.panes.log.event_text`)
    assert safe.plain == "ok warned x end" and not _obeyed(safe.plain)
    assert [(safe.plain[s.start:s.end], str(s.style)) for s in safe.spans] == [("ok ", "bold"), ("warned x", "yellow")]
    assert safe.style == "italic"
    assert shown("a\x1b]0;t\x07b\nc", style="dim").plain == "ab\nc"
    clean = Text("fine", style="bold")
    assert shown(clean) is clean   # nothing to do: the same Text, no copy
