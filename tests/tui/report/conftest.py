import pytest

from recorded_env import recorded_doctor_and_env  # noqa: F401 - the fixture, used below


@pytest.fixture(autouse=True)
def _recorded_doctor_and_env(recorded_doctor_and_env):  # noqa: F811
    """Every report test reads the recorded doctor and collect_env (tests/recorded_env.py says why); a test that
    times or fails collect_env (test_export_costs) patches its own over this."""
