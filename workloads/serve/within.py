"""`within`: an awaitable's result, or asyncio.TimeoutError after a time, never dropping a cancellation."""

from __future__ import annotations

import asyncio
from typing import Awaitable, TypeVar

_T = TypeVar("_T")


async def within(awaitable: Awaitable[_T], timeout_s: float) -> _T:
    """Its result, or asyncio.TimeoutError after ``timeout_s``. asyncio.timeout where there is one (3.11+):
    3.11's wait_for returns the result of a request that ended just as the task was cancelled and drops the
    cancellation, so a SIGTERM then went unheard for the rest of the level (seen on CI)."""
    if hasattr(asyncio, "timeout"):
        async with asyncio.timeout(timeout_s):
            return await awaitable
    # 3.10: no asyncio.timeout, and its wait_for drops the cancellation the same way. The timer cancels this
    # task, and only that cancellation becomes the timeout; any other stays a cancellation
    task = asyncio.current_task()
    assert task is not None
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(timeout_s, expire)
    try:
        return await awaitable
    except asyncio.CancelledError:
        if expired:
            raise asyncio.TimeoutError from None
        raise
    finally:
        timer.cancel()
