"""`cardbench compare` on two serve runs: alike runs compared by their output tokens/s, unlike ones refused with
the difference named (the served model, lengths and load levels must match)."""

from __future__ import annotations

from tui import cli


def serve(runs, url, *argv):
    assert cli.main(["run", "--runs-dir", str(runs), "serve", "--url", url, "--concurrency", "2", "--requests", "4",
                     "--input-len", "8", *argv]) == 0
    return max(runs.iterdir(), key=lambda p: p.stat().st_mtime_ns)


def test_serve_runs_compare_when_alike_and_are_refused_naming_the_difference(serve_workload, serving, tmp_path,
                                                                           capsys):
    runs = tmp_path / "runs"
    with serving(itl_s=0.001) as server:
        a = serve(runs, server.url, "--output-len", "4")
        b = serve(runs, server.url, "--output-len", "4")
        c = serve(runs, server.url, "--output-len", "8", "--concurrency", "1,2")
    capsys.readouterr()
    assert cli.main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "output tokens/s at the sweep's last level" in out
    assert cli.main(["compare", str(a), str(c)]) == 2
    err = capsys.readouterr().err
    assert "output tokens 4 (A) vs 8 (B)" in err and "concurrency levels 2 (A) vs 1,2 (B)" in err
    assert "input tokens" not in err and "served model" not in err   # the same on both: no reason to refuse
