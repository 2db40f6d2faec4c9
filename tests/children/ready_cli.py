"""`python -m ready_cli ARGS` is `cardbench ARGS` whose `ready` runs each step as a torch-free stand-in: the result
its workload would give (tests/tui/ready/ready_results.py), no doctor, no telemetry, a recorded collect_env and no
screenshot, as tests/tui/ready/test_ready_command.py stands in. READY_HOLD=<workload> makes that workload's step a
long run of steps (tests/children/steady.py), so a stop lands in the middle of it.

tests/children must be on PYTHONPATH (the workbench starts `python -m ready_cli`)."""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tui" / "ready"))

import ready_results as given  # noqa: E402
from tui import cli  # noqa: E402
from tui.cli import ready as ready_cli  # noqa: E402
from tui.report import envinfo  # noqa: E402
from workloads.runner import Runner  # noqa: E402


def _result_for(name, args):
    if name == "opscan":
        return given.scan() | {"by_dtype": {"fp32": given.scan()["by_dtype"]["bf16"]}}
    if name == "finetune":
        return given.finetune(mfu=None) | given.loss()
    return dict(given.COLD) if "--cold-start" in args else given.fit() | given.perf(prefill_share=None)


def for_workload(cls, name, args=(), **kw):
    if os.environ.get("READY_HOLD") == name:
        return cls([sys.executable, str(HERE / "steady.py"), "100000", "0.05", "tokens/s"], **kw)
    return cls([sys.executable, str(HERE / "result_of.py"), json.dumps(_result_for(name, list(args)))], **kw)


if __name__ == "__main__":
    Runner.for_workload = classmethod(for_workload)
    ready_cli._doctor = lambda progress: []
    import tui.cli.check_args
    import tui.headless
    import tui.workbench.screenshot

    tui.headless.start_sampler = lambda progress, session: None
    tui.cli.check_args.check_workload_args = lambda name, args: None
    tui.workbench.screenshot.app_screenshot = lambda records, sample: (None, "not drawn")
    text = (HERE.parent / "fixtures" / "report" / "nvidia-8x-rtx-a5000-torch1.11-cu115.txt").read_text()
    envinfo.run_collect_env = lambda **kw: envinfo.CollectEnv(text, envinfo.parse_collect_env(text), 0.1)
    sys.exit(cli.main())
