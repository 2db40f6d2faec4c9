import pytest

from workloads import registry
from workloads.command.spec import SPEC


@pytest.fixture
def command_workload():
    """The command workload registered as the registry line will register it (workloads/__init__.py)."""
    with registry.registered(SPEC):
        yield SPEC
