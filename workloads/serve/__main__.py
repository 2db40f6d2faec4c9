"""`python -m workloads.serve`."""
import sys

from workloads.child.harness import run_main
from workloads.serve.cli import main

sys.exit(run_main(main))
