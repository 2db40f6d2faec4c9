"""The job's bytes become the lines a terminal shows, and run.log keeps them as printed."""

from __future__ import annotations

from workloads.jobs.output import CUT, LONGEST, NEWLINE, PEEK, REDRAW, REDRAW_LOG_S, LogCopy, Splitter


def split(*chunks: bytes) -> list[tuple[str, str]]:
    splitter = Splitter()
    out = [piece for chunk in chunks for piece in splitter.feed(chunk)]
    return out + list(splitter.close())


def test_newlines_redraws_and_a_crlf_cut_between_two_reads():
    assert split(b"a\rb\r", b"\nc\n", b"last") == [("a", REDRAW), ("b", PEEK), ("b", NEWLINE), ("c", NEWLINE),
                                                  ("last", NEWLINE)]


def test_utf8_split_across_reads_and_a_line_with_no_end_is_cut_at_a_bound():
    bar = "█".encode()
    assert split(b"10%|" + bar[:1], bar[1:] + b"|\n") == [("10%|█|", NEWLINE)]
    pieces = split(b"x" * (LONGEST + 10))
    assert pieces[0] == ("x" * LONGEST, CUT) and pieces[1] == ("x" * 10, NEWLINE)


def test_the_log_keeps_full_lines_unchanged_and_one_redraw_per_interval():
    now = [0.0]
    written: list[str] = []
    copy = LogCopy(written.append, clock=lambda: now[0])
    copy.line("  bar 1/9", REDRAW)          # the first redraw is written at once
    for n in range(2, 6):
        now[0] += 0.1
        copy.line(f"  bar {n}/9", REDRAW)  # ten a second: kept back
    copy.line(" " * 51, REDRAW)             # tqdm's clear before a tqdm.write: nothing to keep
    copy.line("{'loss': 4.7764}", NEWLINE)  # the newest redraw goes first, then the line, as the screen had it
    now[0] += 0.1
    copy.line("  bar 6/9", REDRAW)
    now[0] += REDRAW_LOG_S
    copy.line("  bar 7/9", REDRAW)
    assert written == ["  bar 1/9", "  bar 5/9", "{'loss': 4.7764}", "  bar 6/9", "  bar 7/9"]
    assert list(copy.tail)[-2:] == ["  bar 6/9", "  bar 7/9"]


def test_a_redraw_is_handed_out_as_it_stands_before_the_next_one_ends_it():
    splitter = Splitter()
    # tqdm writes `\r` then the bar: the bar's text is known at once, its end only with the next redraw
    assert list(splitter.feed(b"\r 25%|##5       | 10/40 [00:00<00:01, 23.41it/s]")) == [
        ("", REDRAW), (" 25%|##5       | 10/40 [00:00<00:01, 23.41it/s]", PEEK)]
    assert list(splitter.feed(b"\r 27%")) == [(" 25%|##5       | 10/40 [00:00<00:01, 23.41it/s]", REDRAW),
                                             (" 27%", PEEK)]
    assert list(splitter.feed(b"half a line")) == []  # text after a newline is no redraw: it waits for its end
