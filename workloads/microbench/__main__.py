"""`python -m workloads.microbench`."""
import sys

from workloads.child.harness import run_main
from workloads.microbench.cli import main

sys.exit(run_main(main))
