"""Exit codes, one set for every cardbench process (the CLI, the headless export and workload children).

Scripts tell a bad argument (2) from a failure (1) and from an interruption.
"""

OK = 0
FAILED = 1          # a workload failed, or an export could not be written
BAD_INPUT = 2       # a bad argument, path or value: fix the command and run it again
INTERRUPTED = 130   # 128 + SIGINT: Ctrl+C, or a stop asked for by the user or a signal
STOPPED = 143       # 128 + SIGTERM: a workload child ended by its runner's stop
HELP_SHOWN = 3      # an argument check's exit after --help: it printed the help and nothing is to run


def for_signal(signum: int) -> int:
    """The shell's convention for a process ended by a signal."""
    return 128 + int(signum)
