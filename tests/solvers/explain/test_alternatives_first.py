"""The alternatives' buy-only MIP goes to HiGHS before the main model is built and the thresholds' single units are
ranked on the main thread before its MIP (issue 29: the alternatives' Python after their MIP then runs while the
main MIP does, and both threads end about together), and a main build that fails fails the plan without leaving
the alternatives' thread waiting for a model that never comes."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest

from pricing.catalog import bundled_catalog
from solvers import plan as plan_module
from solvers.base import deferred
from solvers.explain import alternatives
from solvers.plan import make_plan
from tests.conftest import TODAY
from tests.solvers.explain.test_alternatives import bursty_profile, inline_plan


def test_the_buy_only_mip_is_in_highs_before_the_main_model_is_built() -> None:
    events: list[tuple[str, str]] = []
    load, build, rank = alternatives.load, plan_module.build, alternatives.ranked_singles

    def loading(*args: Any) -> Any:
        loaded = load(*args)
        events.append(("buy-only loaded", threading.current_thread().name))
        return loaded

    def building(*args: Any) -> Any:
        events.append(("main build", threading.current_thread().name))
        return build(*args)

    def ranking(where: str) -> Any:
        def ranked(*args: Any) -> Any:
            events.append((f"singles ranked in {where}", threading.current_thread().name))
            return rank(*args)
        return ranked

    profile = bursty_profile()
    with patch.object(alternatives, "load", loading), patch.object(plan_module, "build", building), \
            patch.object(plan_module, "ranked_singles", ranking("plan")), \
            patch.object(alternatives, "ranked_singles", ranking("alternatives")):
        threaded = make_plan(profile, bundled_catalog(), TODAY)
        assert deferred._ALTERNATIVES_IDLE.acquire(timeout=30)  # the thread is done before the patches go
        deferred._ALTERNATIVES_IDLE.release()
    # the single units are ranked on the main thread before its MIP, not after the alternatives' MIP
    assert [e for e, _ in events] == ["buy-only loaded", "main build", "singles ranked in plan"]
    assert events[0][1].startswith("gpuplan-alternatives")
    assert events[1][1] == events[2][1] == threading.main_thread().name
    assert inline_plan(profile).model_dump(exclude={"solver"}) == threaded.model_dump(exclude={"solver"})


def test_a_main_build_that_fails_leaves_the_alternatives_thread_free() -> None:
    def failing(*args: Any) -> Any:
        raise RuntimeError("the main build failed")

    profile = bursty_profile()
    with patch.object(plan_module, "build", failing), pytest.raises(RuntimeError, match="main build failed"):
        make_plan(profile, bundled_catalog(), TODAY)
    # the alternatives' thread learns of the failure from the model's future and goes idle again
    assert deferred._ALTERNATIVES_IDLE.acquire(timeout=30)
    deferred._ALTERNATIVES_IDLE.release()
    assert make_plan(profile, bundled_catalog(), TODAY).buy


class _InterruptedWait(threading.Event):
    """`launched` as a Ctrl-C finds it: the main thread's wait for the buy-only MIP raises KeyboardInterrupt."""

    def wait(self, timeout: float | None = None) -> bool:
        raise KeyboardInterrupt


def test_an_interrupt_while_the_main_thread_waits_leaves_the_alternatives_thread_free() -> None:
    """A KeyboardInterrupt in the main thread's wait for `launched` (or anywhere between the alternatives' start and
    the main build) must fail the model's future: the alternatives' thread otherwise waits for the model forever,
    every later plan does its alternatives inline and the interpreter hangs at exit joining that thread."""
    futures: list[Future[Any]] = []

    class Recorded(Future):  # type: ignore[type-arg]
        def __init__(self) -> None:
            super().__init__()
            futures.append(self)

    profile = bursty_profile()
    try:
        with patch.object(plan_module, "threading", SimpleNamespace(Event=_InterruptedWait)), \
                patch.object(plan_module, "Future", Recorded), pytest.raises(KeyboardInterrupt):
            make_plan(profile, bundled_catalog(), TODAY)
        freed = deferred._ALTERNATIVES_IDLE.acquire(timeout=30)
        if freed:
            deferred._ALTERNATIVES_IDLE.release()
        assert freed, "the alternatives' thread still waits for the main model"
    finally:  # unstick the thread when it waits (before the fix), so that the suite and the interpreter can end
        for future in futures:
            if not future.done():
                future.set_exception(RuntimeError("test cleanup"))
        assert deferred._ALTERNATIVES_IDLE.acquire(timeout=30)
        deferred._ALTERNATIVES_IDLE.release()


@pytest.mark.parametrize("step", ["load", "start_guess", "ranked_singles"])
def test_a_main_thread_step_that_fails_leaves_the_alternatives_thread_free(step: str) -> None:
    """Every step between the alternatives' start and the model's hand-over fails the future, not only the build."""
    def failing(*args: Any) -> Any:
        raise RuntimeError(f"{step} failed")

    with patch.object(plan_module, step, failing), pytest.raises(RuntimeError, match=f"{step} failed"):
        make_plan(bursty_profile(), bundled_catalog(), TODAY)
    assert deferred._ALTERNATIVES_IDLE.acquire(timeout=30)
    deferred._ALTERNATIVES_IDLE.release()


def test_a_buy_only_build_that_fails_releases_the_main_thread() -> None:
    """The alternatives' thread says `launched` even when its own build fails (the main thread waits for it), and the
    plan fails with that error when it asks for the alternatives."""
    def failing(*args: Any) -> Any:
        raise RuntimeError("the buy-only build failed")

    with patch.object(alternatives, "build", failing), pytest.raises(RuntimeError, match="buy-only build failed"):
        make_plan(bursty_profile(), bundled_catalog(), TODAY)
    assert deferred._ALTERNATIVES_IDLE.acquire(timeout=30)
    deferred._ALTERNATIVES_IDLE.release()
