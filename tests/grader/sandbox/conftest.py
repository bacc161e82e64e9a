"""Fixtures for the sandbox's tests: a pool of real zygotes shared by a module's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grader.sandbox.pool import ZygotePool
from grader.sandbox.runs import new_pool
from grader.sandbox.zygote import Zygote


@pytest.fixture(scope="module")
def pool() -> Iterator[ZygotePool[Zygote]]:
    zygotes = new_pool(size=2)
    yield zygotes
    zygotes.close()
