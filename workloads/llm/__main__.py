"""`python -m workloads.llm`."""
import sys

from workloads.child.harness import run_main
from workloads.llm.cli import main

sys.exit(run_main(main))
