"""A test server (workloads/serve/testserver.py) on 127.0.0.1 in a thread of the test, and the serve workload
registered as its registry line will register it."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager

import pytest

from workloads import registry
from workloads.serve.spec import SPEC
from workloads.serve.testserver import Behaviour, TestServer


@contextmanager
def running(**behaviour):
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = asyncio.run_coroutine_threadsafe(TestServer(Behaviour(**behaviour)).start(), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def serving():
    """``with serving(ttft_s=0.1) as server: server.url``."""
    return running


@pytest.fixture
def serve_workload():
    with registry.registered(SPEC):
        yield SPEC
