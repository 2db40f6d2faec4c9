"""`--launch "CMD"`: the user's server as the command workload runs a job (its process group, guard and
leftover sweep: workloads.jobs.job), its output in run.log as ``[server]`` lines, read on a thread while
the sweep runs; ready when /health or /v1/models answers 200, within a time cap."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import signal
import subprocess
import threading
from typing import Callable

from workloads.child.harness import WorkloadError, log
from workloads.jobs.job import Job, pump
from workloads.jobs.output import LogCopy
from workloads.safe_text import one_line
from workloads.serve.client import Answer, Connection, Endpoint, get_json
from workloads.serve.within import within

_POLL_S = 0.5
_NAMED_LINES = 3


def command_of(text: str) -> list[str]:
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise WorkloadError(f"--launch: cannot split {text!r} ({exc})") from None
    if not argv:
        raise WorkloadError("--launch: the command is empty")
    if shutil.which(argv[0]) is None:
        raise WorkloadError(f"--launch: command not found: {argv[0]}",
                            hint="check its name and PATH, or give its path")
    return argv


class LaunchedServer:
    def __init__(self, argv: list[str], grace_s: float, env: dict[str, str] | None = None,
                 scrub: Callable[[str], str] = str):
        self.job = Job(argv, env={**os.environ, **(env or {})}, grace_s=grace_s)
        # its output goes through ``scrub`` first (the key replaced: a server may print the key it was given)
        self.copy = LogCopy(lambda text: log(f"[server] {scrub(text)}"), tail=50)
        self.scrub = scrub
        self._reader: threading.Thread | None = None

    def start(self) -> int:
        try:
            self.job.start()
        except OSError as exc:
            raise WorkloadError(f"--launch: cannot run {self.job.argv[0]}: {exc.strerror or exc}") from None
        self._reader = threading.Thread(target=pump, args=(self.job, self.copy.line), daemon=True,
                                        name="server-log")
        self._reader.start()
        return self.job.pid

    def exit_code(self) -> int | None:
        return self.job.process.poll() if self.job.process is not None else None

    def last_lines(self) -> str:
        lines = [one_line(self.scrub(line), 200) for line in list(self.copy.tail)[-_NAMED_LINES:]]
        return " | ".join(lines) if lines else "(it printed nothing)"

    async def ready(self, endpoint: Endpoint, cap_s: float) -> float:
        """Seconds until the server answered 200 on /health or the models path; an error naming why not."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        while True:
            code = self.exit_code()
            if code is not None:
                raise WorkloadError(f"the server command exited with code {code} before it answered; its last "
                                    f"lines: {self.last_lines()}", hint="run.log has its whole output",
                                    bad_input=False)
            for path in ("/health", endpoint.base + "/models"):
                conn = Connection(endpoint)
                try:
                    status, _ = await within(get_json(conn, path), 5.0)
                except (Answer, asyncio.TimeoutError):
                    status = None
                finally:
                    conn.close()
                if status == 200:
                    return loop.time() - start
            if loop.time() - start > cap_s:
                raise WorkloadError(f"the server did not answer /health or {endpoint.base}/models within "
                                    f"{cap_s:g} s of its start; its last lines: {self.last_lines()}",
                                    hint="a large model loads for minutes: raise --launch-timeout",
                                    bad_input=False)
            await asyncio.sleep(_POLL_S)

    def stop(self) -> int | None:
        """SIGTERM to the server's group, SIGKILL after the grace period; its output read to the end."""
        job = self.job
        if job.process is None:
            return None
        if job.process.poll() is None:
            job.signal_group(signal.SIGTERM)
            try:
                job.process.wait(timeout=job.grace_s)
            except subprocess.TimeoutExpired:   # it ignored SIGTERM
                log(f"[cardbench] the server ignored SIGTERM for {job.grace_s:g} s; sending SIGKILL")
                job.signal_group(signal.SIGKILL)
                job.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=job.grace_s + 2.0)
        self.copy.flush()
        job.release()
        left = job.stop_leftovers()
        if left:
            log(f"[cardbench] stopped {len(left)} process(es) the server left outside its group: "
                f"pid {', '.join(map(str, left))}")
        return job.process.returncode
