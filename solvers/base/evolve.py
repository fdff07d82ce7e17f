"""Frozen dataclasses made without `__init__`: `evolved` (a copy with some fields changed), and for a maker that
fills instances itself, `defaults_of` (where its state starts) and `filled` (an instance of a dict it made, the
first of each class `checked`).

Why: the offers stage makes one purchase option per quote, place and job width (`solvers.offers.owned`), and an
option has some forty fields; a frozen dataclass's `__init__` sets each through `object.__setattr__` (about 5 us an
option, `dataclasses.replace` about 10 us), where filling the instance's dict takes under 1 us. For 200 quote items
that was half of the offers stage (issue 31). Only for frozen dataclasses without `__post_init__`, `__slots__` or
cached properties (the options of `solvers.base.options`): nothing is derived from the fields as they are set.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class _Shape:
    """What `evolved`, `defaults_of` and `checked` need of a class: its field names and plain defaults."""

    names: frozenset[str]
    defaults: dict[str, Any]
    factories: bool  # some field has a default factory (`defaults_of` cannot give it)
    # the lists of field names `evolved` was given and found known, in their order: a caller passes the same names
    # every time, so one lookup stands for the set comparison
    changes_checked: set[tuple[str, ...]] = dataclasses.field(default_factory=set)


_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    found = _SHAPES.get(cls)
    if found is not None:
        return found
    cached = any(isinstance(v, functools.cached_property) for base in cls.__mro__ for v in vars(base).values())
    if cached or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__}: evolved() copies plain frozen dataclasses only")
    fields = dataclasses.fields(cls)
    factories = any(f.default_factory is not dataclasses.MISSING for f in fields)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    return _SHAPES.setdefault(cls, _Shape(frozenset(f.name for f in fields), defaults, factories))


def evolved(instance: T, **changes: Any) -> T:
    """`dataclasses.replace(instance, **changes)`, for the dataclasses named above; an unknown field is a TypeError,
    as there (checked once per list of names)."""
    cls = type(instance)
    shape = _shape(cls)
    names = tuple(changes)
    if names not in shape.changes_checked:
        unknown = changes.keys() - shape.names
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
        shape.changes_checked.add(names)
    copy = object.__new__(cls)
    state = copy.__dict__
    state.update(instance.__dict__)
    state.update(changes)
    return copy


def defaults_of(cls: type) -> dict[str, Any]:
    """A new dict of the plain defaults of `cls`'s fields: where a maker that fills instances itself starts its
    shared state (`solvers.offers.owned.OwnedUnit`); check the first instance it fills with `checked`."""
    shape = _shape(cls)
    if shape.factories:
        raise TypeError(f"{cls.__name__}: plain defaults only, not default factories")
    return dict(shape.defaults)


_FILLED: set[type] = set()  # the classes whose first instance `filled` made was checked
_new, _set = object.__new__, object.__setattr__  # bound once: `filled` runs once per option a plan makes


def filled(cls: type[T], state: dict[str, Any]) -> T:
    """An instance of `cls` whose dict is `state` (taken as it is, not copied), made without `__init__`, for a maker
    that builds each instance's fields itself (`solvers.offers.owned.OwnedUnit`; `solvers.offers.cloud.cloud_options`
    does the same inline: a call per option measured 5% of that function, 436 -> 461 us for 248 options on
    2026-11-28); the first instance a process fills of each class is `checked`. The state is set as the instance's
    own dict rather than filled into `object.__new__(cls).__dict__` key by key (one assignment, not one per
    field)."""
    instance = _new(cls)
    _set(instance, "__dict__", state)
    if cls not in _FILLED:
        checked(instance)
        _FILLED.add(cls)
    return instance


def checked(instance: T) -> T:
    """`instance`, after checking that its dict holds exactly its dataclass's fields (TypeError otherwise): for an
    instance filled field by field without `__init__`, as the first of each maker's is."""
    cls = type(instance)
    shape = _shape(cls)
    given = vars(instance).keys()
    if given != shape.names:
        unknown, missing = sorted(given - shape.names), sorted(shape.names - given)
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}" if unknown else
                        f"{cls.__name__} misses field {missing[0]!r}")
    return instance


__all__ = ["checked", "defaults_of", "evolved", "filled"]
