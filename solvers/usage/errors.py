"""The one error a usage-log parser raises: where in the file it went wrong, and which field.

A parser either returns a complete series or raises this; it never returns what it read up to the
bad line, because a half-read log would silently understate demand.
"""

from __future__ import annotations


class UsageFormatError(ValueError):
    """A usage log that cannot be read: names the line (text formats) or JSON path, and the field.

    `line` is 1-based as an editor shows it; `path` is a JSON path such as
    `data.result[2].values[17][1]`. One of them is set when the fault has a place in the file;
    both are None for faults of the whole file (empty, unknown format) or of an argument (`tz`).
    """

    def __init__(self, field: str, rule: str, *, line: int | None = None, path: str | None = None) -> None:
        where = f"line {line}" if line is not None else (path if path is not None else "file")
        super().__init__(f"{where}, field {field}: {rule}")
        self.field = field
        self.rule = rule
        self.line = line
        self.path = path
        self.message = str(self)
