"""Reading delimited text logs into string columns with their file line numbers.

pandas' C parser does the splitting (no Python step per line); every row keeps the line number
it came from so that any later check can name it. Blank lines are dropped after numbering.
"""

from __future__ import annotations

import csv
import io
import re
from typing import NoReturn

import numpy as np
import pandas as pd

from solvers.usage.errors import UsageFormatError

_FIELD_COUNT = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def decode(data: str | bytes) -> str:
    """Text of a log given as text or bytes (UTF-8, with or without a byte-order mark)."""
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageFormatError("encoding", f"not UTF-8 (byte {exc.start})", line=line) from None


def read_table(text: str, separator: str, *, strip_spaces: bool) -> pd.DataFrame:
    """Rows of a delimited log as strings, indexed by their 1-based line number; header on line 1.

    No quoting: neither sacct nor nvidia-smi quotes fields, so a quote character is data.
    """
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=separator, header=0, dtype=str, keep_default_na=False, na_filter=False,
            skip_blank_lines=False, quoting=csv.QUOTE_NONE, skipinitialspace=strip_spaces, engine="c",
            index_col=False,
        )
    except pd.errors.EmptyDataError:
        raise UsageFormatError("header", "the file is empty", line=1) from None
    except pd.errors.ParserError as exc:
        found = _FIELD_COUNT.search(str(exc))
        if found:
            expected, line, seen = found.groups()
            rule = f"{seen} fields where the header has {expected}"
            raise UsageFormatError("columns", rule, line=int(line)) from None
        raise UsageFormatError("columns", "cannot be split into fields") from None
    frame.index = pd.RangeIndex(2, 2 + len(frame))
    empty_first = (frame.iloc[:, 0] == "").to_numpy()
    if empty_first.any():  # a blank line: every field empty (checked only where the first one is)
        blank = np.zeros(len(frame), dtype=bool)
        blank[empty_first] = (frame.loc[empty_first] == "").all(axis=1).to_numpy()
        frame = frame.loc[~blank]
    # pandas pads short rows with empty fields; count separators (in C) to refuse them instead
    expected = len(frame.columns) - 1
    if text.count(separator) != expected * (len(frame) + 1):
        _raise_short_row(text, separator, expected)
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _raise_short_row(text: str, separator: str, expected: int) -> NoReturn:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip() and line.count(separator) != expected:
            raise UsageFormatError(
                "columns", f"{line.count(separator) + 1} fields where the header has {expected + 1}", line=number)
    raise UsageFormatError("columns", "rows and header disagree on the number of fields")
