"""`evolved` and `made`: a frozen dataclass with some fields changed, or made from its fields, without calling
`__init__`.

Why: the offers stage makes one purchase option per quote, place and job width (`solvers.offers.owned`), and an
option has some forty fields; a frozen dataclass's `__init__` sets each through `object.__setattr__` (about 5 us an
option, `dataclasses.replace` about 10 us), where filling the instance's dict takes about 1 us. For 200 quote items
that was a quarter of the offers stage (issue 31). The names a caller gives are checked once per list of names (a
caller gives the same ones every time), not on every call. Only for frozen dataclasses without `__post_init__`,
`__slots__` or cached properties (the options of `solvers.base.options`): nothing is derived from the fields as they
are set.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class _Shape:
    """What `evolved` and `made` need of a class: its field names, the required ones and the defaults."""

    names: frozenset[str]
    required: frozenset[str]
    defaults: dict[str, Any]
    factories: bool  # some field has a default factory (`made` cannot fill it)
    # the lists of field names found right, in their order (`evolved`: all known; `made`: all known and every
    # required one there): a caller passes the same names every time, so one lookup stands for the set comparisons
    changes_checked: set[tuple[str, ...]] = dataclasses.field(default_factory=set)
    fields_checked: set[tuple[str, ...]] = dataclasses.field(default_factory=set)


_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    found = _SHAPES.get(cls)
    if found is not None:
        return found
    cached = any(isinstance(v, functools.cached_property) for base in cls.__mro__ for v in vars(base).values())
    if cached or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__}: evolved() and made() take plain frozen dataclasses only")
    fields = dataclasses.fields(cls)
    factories = any(f.default_factory is not dataclasses.MISSING for f in fields)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    required = frozenset(f.name for f in fields if f.name not in defaults)
    return _SHAPES.setdefault(cls, _Shape(frozenset(f.name for f in fields), required, defaults, factories))


def evolved(instance: T, **changes: Any) -> T:
    """`dataclasses.replace(instance, **changes)`, for the dataclasses named above; an unknown field is a TypeError,
    as there."""
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


def made(cls: type[T], fields: Mapping[str, Any]) -> T:
    """`cls(**fields)`, for the dataclasses named above: the defaults of the fields not given; an unknown or a
    missing required field is a TypeError, as there. A mapping, not keywords: packing forty keywords again costs
    as much as the copy."""
    shape = _shape(cls)
    if shape.factories:
        raise TypeError(f"{cls.__name__}: made() fills plain defaults only, not default factories")
    names = tuple(fields)
    if names not in shape.fields_checked:
        unknown, missing = sorted(fields.keys() - shape.names), sorted(shape.required - fields.keys())
        if unknown or missing:
            raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}" if unknown else
                            f"{cls.__name__} misses field {missing[0]!r}")
        shape.fields_checked.add(names)
    instance = object.__new__(cls)
    state = instance.__dict__
    state.update(shape.defaults)
    state.update(fields)
    return instance


__all__ = ["evolved", "made"]
