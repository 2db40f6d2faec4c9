"""`python -m workloads.resnet50`: also what torchrun starts on each rank for `--gpus N`."""
from workloads.child.data_parallel import emitter_for_this_process, exit_process
from workloads.child.harness import run_main
from workloads.resnet50.cli import main

exit_process(run_main(main, emitter=emitter_for_this_process()))
