"""Crossing days are given to `curves.DAY_DECIMALS` decimals, so that their value does not follow the solver's
path in the last bits (docs/ARCHITECTURE.md, "Where a plan's time goes")."""

from __future__ import annotations

from solvers.money.curves import DAY_DECIMALS, crossing, curve


def test_a_crossing_a_third_of_the_way_through_a_day_is_rounded_to_a_millionth() -> None:
    """Owned is 1 dearer on day 0 and 2 cheaper on day 1: they cross a third of the way, 0.333333 to six
    decimals, not 0.3333333333333333."""
    owned, cloud = curve(1.0, [0.0], 0.0), curve(0.0, [3.0], 0.0)
    assert DAY_DECIMALS == 6
    assert crossing([0.0, 1.0], owned, cloud) == 0.333333


def test_curves_that_never_cross_have_no_day() -> None:
    assert crossing([0.0, 1.0], curve(1.0, [1.0], 0.0), curve(0.0, [1.0], 0.0)) is None


def test_the_crossing_is_the_day_from_which_it_stays_crossed() -> None:
    """Owned starts 10 dearer, is 2 cheaper on day 1, 4 dearer again on day 2 (its fixed costs run on with no work)
    and ends 1 cheaper only with its resale of 5: it pays off on the last day, not on day 1. Without the resale it
    ends behind: no day."""
    cloud = curve(0.0, [12.0, 0.0], 0.0)
    assert crossing([0.0, 1.0, 2.0], curve(10.0, [0.0, 6.0], 5.0), cloud) == 2.0
    assert crossing([0.0, 1.0, 2.0], curve(10.0, [0.0, 6.0], 0.0), cloud) is None
    # behind again on day 2 and ahead for good from halfway to day 3: the last time it crosses
    assert crossing([0.0, 1.0, 2.0, 3.0], curve(10.0, [0.0, 6.0, 0.0], 0.0), curve(0.0, [12.0, 0.0, 8.0], 0.0)) == 2.5
