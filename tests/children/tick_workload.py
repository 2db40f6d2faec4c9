"""A torch-free workload through the real harness: a step every --delay seconds, --steps of them (0: until stopped);
--refuse-after N: bad input found after N steps (a WorkloadError, exit 2), as a workload that checks once it runs.

Started as `python -m tick_workload` by the runner of `tick_cli` (see there); SIGTERM ends it with end(stopped).
"""
import sys
import time

from workloads.child.harness import ArgumentParser, WorkloadError, run_main


def main(emitter, argv):
    parser = ArgumentParser(prog="tick")
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--refuse-after", type=int, default=None)
    args = parser.parse_args(argv)
    emitter.start("tick", {"steps": args.steps or None}, "cpu", {"python": sys.version.split()[0]})
    step = 0
    while not args.steps or step < args.steps:
        if step == args.refuse_after:
            raise WorkloadError(f"tick refuses to go past step {step}", hint="a stand-in's refusal")
        step += 1
        time.sleep(args.delay)
        emitter.step(step, throughput=10.0 + step % 7, unit="ticks/s", loss=1.0 / step)
    emitter.result({"ticks_per_s": 10.0, "precision": "fp32"})
    return 0


sys.exit(run_main(main))
