"""The launcher's workload bar: every workload keeps its key and name, however narrow the launcher."""

import asyncio

import pytest

from app_fakes import FakeTelemetry
from tui.workbench.app import build_app
from tui.workbench.panes.launcher import workload_bar
from workloads import registry


LONGEST = max(len(f">{i} {registry.spec_for(n).short_title} ") for i, n in enumerate(registry.names(), start=1))


@pytest.mark.parametrize("width", range(LONGEST, 70, 3))
def test_lines_break_between_workloads_never_inside_a_label(width):
    names = registry.names()
    lines = workload_bar(names, names[1], width).plain.split("\n")
    assert all(len(line) <= width for line in lines)
    labels = [f"{i % 10} {registry.spec_for(n).short_title}" for i, n in enumerate(names, start=1)]  # 0: the tenth
    for label in labels:
        assert sum(label in line for line in lines) == 1, (label, lines)


def test_narrower_than_a_label_each_line_keeps_its_key():
    names = registry.names()
    lines = workload_bar(names, names[0], 8).plain.split("\n")
    assert len(lines) == len(names) and all(len(line) <= 8 for line in lines)
    assert [line[1] for line in lines] == [str(i % 10) for i in range(1, len(names) + 1)]  # 0: the tenth


def test_at_80_columns_the_launcher_names_every_workload():
    app = build_app(None, start_sampler=False, telemetry_source=FakeTelemetry)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            bar = app.query_one("#workload-bar")
            lines = bar.render().plain.split("\n")
            assert bar.size.height == len(lines) > 1  # wrapped, and all of it shown
            assert all(len(line) <= bar.content_region.width for line in lines)
            for i, name in enumerate(registry.names(), start=1):
                assert sum(f"{i % 10} {registry.spec_for(name).short_title}" in line for line in lines) == 1, lines

    asyncio.run(go())


async def test_the_tenth_workload_has_key_0_and_an_eleventh_is_named_without_a_key(tmp_path):
    # more workloads than the number row's keys: 0 chooses the tenth (a tenth once had no key at all)
    import contextlib

    from test_app_fields import screen_text

    from tui.workbench.app import build_app
    from tui.workbench.panes.keys import key_span, workload_key
    from workloads import registry
    from workloads.spec import unknown

    assert [workload_key(i) for i in (0, 8, 9, 10)] == ["1", "9", "0", None]
    assert (key_span(6), key_span(10), key_span(12)) == ("1-6", "0-9", "0-9")
    with contextlib.ExitStack() as stack:
        for i in range(11 - len(registry.names())):
            stack.enter_context(registry.registered(unknown(f"plugin{i}")))
        names = registry.names()
        app = build_app(tmp_path, start_sampler=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await app.panes_built.wait()
            await pilot.press("0")
            await pilot.pause()
            assert app.selected_workload == names[9]
            text = screen_text(app)
            assert f">0 {registry.spec_for(names[9]).short_title}" in text
            assert f"· {registry.spec_for(names[10]).short_title}" in text
            assert "0-9 select" in text
