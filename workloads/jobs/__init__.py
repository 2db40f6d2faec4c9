"""A job: someone else's processes that a workload starts and answers for (the command workload's training command,
serve's inference server). Torch-free.

- :mod:`~workloads.jobs.job`: the job in a process group of its own, led by a guard, and the loop that reads it;
- :mod:`~workloads.jobs.guard`: the guard that takes the group down when the workload's child goes, however it goes;
- :mod:`~workloads.jobs.output`: what the job prints, split into lines as a terminal shows them and copied to run.log;
- :mod:`~workloads.jobs.procs`: the processes /proc lists (the guard's group, the job's descendants);
- :mod:`~workloads.jobs.device_env`: the environment ``--device`` gives the job.
"""
