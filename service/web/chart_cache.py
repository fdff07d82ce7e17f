"""Charts drawn once and kept: the same chart asked again, or asked many times at once, is drawn one time.

Why (issue 31): a chart takes matplotlib most of a second, one at a time (`chart_draw.drawing`), in one of the
threads every synchronous route shares; sixteen anonymous history charts at once took 12.8 s each, and held 16 of
those threads meanwhile. A chart is a pure function of its key (what it shows and the data version it shows), so
the answer is kept (the newest `KEPT`), and a request for a chart being drawn waits for that drawing instead of
starting its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

KEPT = 64


class ChartCache:
    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._done: OrderedDict[Hashable, bytes] = OrderedDict()
        self._drawing: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, draw: Callable[[], bytes]) -> bytes:
        """The chart of `key`, drawn by `draw` if nobody has (or is drawing it)."""
        while True:
            with self._lock:
                if key in self._done:
                    self._done.move_to_end(key)
                    return self._done[key]
                pending = self._drawing.get(key)
                if pending is None:
                    pending = self._drawing[key] = threading.Event()
                    break
            pending.wait()  # another request draws it; if that drawing failed, the next loop draws anew
        try:
            svg = draw()
            with self._lock:
                self._done[key] = svg
                while len(self._done) > self.kept:
                    self._done.popitem(last=False)
            return svg
        finally:
            with self._lock:
                del self._drawing[key]
            pending.set()
