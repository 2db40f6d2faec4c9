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
    assert "output tokens/s at the result's level" in out
    assert cli.main(["compare", str(a), str(c)]) == 2
    err = capsys.readouterr().err
    assert "output tokens 4 (A) vs 8 (B)" in err and "concurrency levels 2 (A) vs 1,2 (B)" in err
    assert "input tokens" not in err and "served model" not in err   # the same on both: no reason to refuse


def test_the_sweep_table_is_in_the_report_bundle_in_its_language(serve_workload, serving, tmp_path, capsys,
                                                                 monkeypatch):
    import zipfile

    from tui.report import envinfo, png
    from tui.report.export import ExportInputs, export_bundle

    # torch's collect_env takes seconds and says nothing of the table
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv("stub", {}, 0.0))

    runs = tmp_path / "runs"
    with serving(itl_s=0.001, fail_every=5) as server:
        run = serve(runs, server.url, "--concurrency", "1,2", "--output-len", "4")
    for lang, heading, header in (
            ("en", "Serving sweep, speed and latency: each level's figures", "| level | requests | errors |"),
            ("zh", "服务压测，速度与延迟：各档位指标", "| 档位 | 请求数 | 错误 |")):
        bundle = export_bundle(ExportInputs([run], tmp_path / lang, screenshot_svg=png.terminal_svg("x", "cardbench"),
                                            lang=lang,
                                            doctor_checks=[]))
        with zipfile.ZipFile(bundle) as zf:
            md = zf.read(next(n for n in zf.namelist() if n.endswith("report.md"))).decode()
        assert heading in md and header in md
        lines = md.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(header))   # the requests' table
        rows = [line for line in lines[at + 2:at + 4] if line.startswith(("| concurrency 1 |", "| concurrency 2 |"))]
        assert len(rows) == 2 and all(r.split("|")[2].strip() == "4" for r in rows)   # --requests 4 a level
