"""`evolved`: a frozen dataclass with some fields changed, without `dataclasses.replace`'s call of `__init__`.

Why: the offers stage copies every purchase option once per place and PUE (`solvers.offers.pue`), and an option
has some forty fields; `replace` passes all of them to `__init__` again (about 6 us an option, a fifth of the offers
stage for 200 quote items), where copying the instance's dict takes about 1 us. Only for frozen dataclasses without
`__post_init__`, `__slots__` or cached properties (the options of `solvers.base.options`): nothing is re-derived
from the changed fields.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, frozenset[str]] = {}


def evolved(instance: T, **changes: Any) -> T:
    """`dataclasses.replace(instance, **changes)`, for the dataclasses named above; an unknown field is a TypeError,
    as there."""
    cls = type(instance)
    names = _FIELDS.get(cls)
    if names is None:
        cached = any(isinstance(v, functools.cached_property) for base in cls.__mro__ for v in vars(base).values())
        if cached or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__}: evolved() copies plain frozen dataclasses only")
        names = _FIELDS.setdefault(cls, frozenset(f.name for f in dataclasses.fields(cls)))
    unknown = changes.keys() - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    copy = object.__new__(cls)
    state = copy.__dict__
    state.update(instance.__dict__)
    state.update(changes)
    return copy


__all__ = ["evolved"]
