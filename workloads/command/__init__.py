"""The user's own job as a workload: `cardbench run command -- CMD ARGS...`.

The child (:mod:`~workloads.command.cli`) starts the command in its own process
group (:mod:`~workloads.jobs.job`, with a guard that takes the group down if
this child dies), copies its stdout and stderr line by line to the run's log
(:mod:`~workloads.jobs.output`), and reads progress from those lines
(:mod:`~workloads.command.parsers`, one module per tool) into step events
(:mod:`~workloads.command.progress`). The command's exit code is the run's end.
"""
