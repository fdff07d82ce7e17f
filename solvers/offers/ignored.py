"""Items a profile brought that the planner leaves out, and why (issue 29: nothing dropped silently).

A lab that quotes a 1-GPU box of an SXM module, a card below its memory floor or an offer of a provider it then
filters out should read in the plan that the item took no part, with the item's name and the reason, not find it
missing. `build_options` records each as a notice (solvers/base/notices.py, codes `ignored_*`); the plan lists them in
its
warnings. Catalog rows are not reported: a catalog holds many offers a profile's filters are meant to drop.
"""

from __future__ import annotations

import numpy as np

from solvers.base.notices import Notice, notice


def owned_item(index: int, name: str, code: str, **params: str | int | float | list[str]) -> Notice:
    """A `prices.owned` quote left out: `code` one of the `ignored_*` codes, with the item's name and field."""
    return notice(code, field=f"prices.owned[{index}]", item=name, **params)


def cloud_reasons(profile_items: int, first: int, masks: list[tuple[np.ndarray, str]],
                  names: list[str], params: list[dict[str, str | int | float | list[str]]]) -> list[Notice]:
    """For the profile's cloud quotes (rows first .. first + profile_items of the candidate table), the first filter
    each fails, in the order the filters apply: a notice per quote left out."""
    out: list[Notice] = []
    for k in range(profile_items):
        row = first + k
        for mask, code in masks:
            if not bool(mask[row]):
                out.append(notice(code, field=f"prices.cloud[{k}]", item=names[k], **params[k]))
                break
    return out


def commitment_item(index: int, name: str, code: str, **params: str | int | float | list[str]) -> Notice:
    """A `prices.commitments` quote left out (or, `commitment_beyond_horizon`, paid past the horizon)."""
    return notice(code, field=f"prices.commitments[{index}]", item=name, **params)
