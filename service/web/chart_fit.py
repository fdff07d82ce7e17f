"""Chart text that fits its canvas: a text's drawn size, and a text broken into lines no wider than a width.

matplotlib neither wraps a title to its figure nor a label to a width (its `wrap=True` breaks at spaces only, at
the figure's edge), so a French or Chinese title ran off a phone-width chart; these measure text with the
renderer of the figure being drawn (Agg: the same font metrics as the SVG's layout).
"""

from __future__ import annotations

import unicodedata

from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text


def renderer_of(fig: Figure) -> RendererBase:
    """A renderer to measure the figure's text with (the SVG is still drawn by savefig)."""
    found: RendererBase = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    return found


def extent_pt(artist: Text, renderer: RendererBase) -> tuple[float, float]:
    """Width and height of a text as drawn, in points."""
    box = artist.get_window_extent(renderer)
    dpi = artist.figure.dpi if artist.figure else 72.0
    return box.width * 72 / dpi, box.height * 72 / dpi


def wrap(said: str, artist: Text, renderer: RendererBase, max_pt: float, between_characters: bool = False) -> str:
    """`said` broken into lines no wider than `max_pt` as `artist` draws it: between words and, with
    `between_characters`, between Chinese characters (a Chinese sentence has no spaces; a short label's words, such
    as 千瓦时, are kept whole); a word wider than the line stays whole."""
    tokens = _tokens(said) if between_characters else [f" {word}" for word in said.split(" ")]
    lines: list[str] = []
    line = ""
    for token in tokens:
        candidate = (line + token).strip() if line else token.strip()
        artist.set_text(candidate)
        if line and extent_pt(artist, renderer)[0] > max_pt:
            lines.append(line.strip())
            line = token.lstrip()
        else:
            line += token
    lines.append(line.strip())
    artist.set_text("")
    return "\n".join(part for part in lines if part)


def _tokens(said: str) -> list[str]:
    """Pieces a line may break between: a word with the space before it, or one CJK character; a closing mark
    (，。：）) stays with what it closes and an opening one (（) with what it opens, so no line starts or ends with
    the wrong one."""
    pieces: list[str] = []
    word = ""
    for char in said:
        wide = unicodedata.east_asian_width(char) in ("W", "F")
        if wide and unicodedata.category(char) in ("Po", "Pe", "Pf") and (word or pieces):
            word += char
            continue
        opened = bool(word) and unicodedata.category(word[-1]) in ("Ps", "Pi")
        if (char == " " or wide) and word and not opened:
            pieces.append(word)
            word = ""
        word += char
    if word:
        pieces.append(word)
    return pieces
