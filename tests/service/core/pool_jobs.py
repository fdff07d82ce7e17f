"""Jobs for the plan pool's tests, in a module of their own: a spawned worker imports only this (not the test
module with the whole app), so the jobs start at once."""

from __future__ import annotations

import os
import time


def worker_pid(_: int) -> int:
    return os.getpid()


def sleep_then(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def die(_: int) -> int:
    os._exit(3)
