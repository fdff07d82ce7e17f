"""CSV cells a spreadsheet will not run: text that starts like a formula is written with a leading apostrophe.

Why: a provider's offer name, a vendor or a profile name comes from outside (a price feed, a quote file, a
request), and Excel, LibreOffice and Google Sheets read a cell that begins with `=`, `+`, `-`, `@`, a tab or a
carriage return as a formula (`=cmd|' /C calc'!A0` runs a program through DDE). OWASP's advice for CSV
injection (https://owasp.org/www-community/attacks/CSV_Injection): prefix such cells with a single quote, which
the spreadsheet shows as text and hides. Numbers are written as numbers: a negative line total is data, not a
formula, and stays summable.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """`value` as a spreadsheet shows it safely: text starting like a formula gets a leading `'`."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def neutralise_row(row: dict[str, Any]) -> dict[str, Any]:
    return {key: neutralise(value) for key, value in row.items()}


def neutralise_frame(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of `table` whose text cells are neutralised (numeric columns are left as they are)."""
    safe = table.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(neutralise)
    return safe
