"""A stop is never lost to a request that ends as it comes (workloads.serve.within.within)."""

from __future__ import annotations

import asyncio

import pytest

from workloads.serve.within import within


@pytest.fixture(autouse=True, params=["asyncio.timeout", "3.10's way"])
def python_version(request, monkeypatch):
    """Each test on both ways: asyncio.timeout (3.11+), and the timer 3.10 takes (no asyncio.timeout there, and
    its wait_for drops the cancellation too)."""
    if request.param != "asyncio.timeout":
        monkeypatch.delattr(asyncio, "timeout", raising=False)


async def test_a_cancel_as_the_request_ends_is_not_lost():
    loop = asyncio.get_running_loop()
    answer = loop.create_future()

    async def request():
        return await answer

    task = asyncio.create_task(within(request(), 5.0))
    await asyncio.sleep(0)      # the request in flight
    answer.set_result("done")   # it ends...
    task.cancel()               # ...as the SIGTERM's cancel comes: 3.11's wait_for returned "done" and lost it
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_request_past_its_time_is_a_timeout():
    with pytest.raises(asyncio.TimeoutError):
        await within(asyncio.sleep(5), 0.01)


async def test_a_result_in_time_is_the_result_and_the_timer_is_gone():
    assert await within(asyncio.sleep(0, result="ok"), 0.05) == "ok"
    await asyncio.sleep(0.1)   # past the time: a timer left behind would cancel this task here
