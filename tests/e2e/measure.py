"""Measurements the browser tests of issue 33 take of what a reader sees: tables cut at their card's edge, figures
broken over two lines, text wider than its input, and a chart's text (its size on the screen, overlaps, inside the
image). Each returns what is wrong, so an assertion prints it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

# every table under `root`: a wrapper scrolling sideways (a column out of sight), a cell past the wrapper's or the
# window's right edge, a figure (.num) laid out on more than one line
CUT_TABLES = """root => {
  const wrong = [];
  const width = document.documentElement.clientWidth;
  for (const wrap of root.querySelectorAll('.table-wrap')) {
    if (!wrap.getClientRects().length) continue;  // in a closed <details>: not shown
    const name = wrap.getAttribute('aria-label') || wrap.getAttribute('aria-labelledby') || '?';
    const box = wrap.getBoundingClientRect();
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      wrong.push(`${name}: ${wrap.scrollWidth} px in ${wrap.clientWidth} px`);
    }
    for (const cell of wrap.querySelectorAll('th, td')) {
      const edge = cell.getBoundingClientRect().right;
      if (edge > box.right + 1 || edge > width + 1) wrong.push(`${name}: "${cell.textContent}" cut at ${box.right} px`);
    }
    for (const cell of wrap.querySelectorAll('tbody .num, tfoot .num')) {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) wrong.push(`${name}: "${cell.textContent}" broken over ${lines.size} lines`);
    }
  }
  return wrong;
}"""

# text inputs and selects under `root` whose value (a select: its chosen option) is wider than the room the control
# gives it, or that reach past `root`'s right edge
CUT_INPUTS = """root => {
  const wrong = [];
  const pen = document.createElement('canvas').getContext('2d');
  const edge = root.getBoundingClientRect().right;
  for (const control of root.querySelectorAll('input:not([type=checkbox]):not([type=radio]), select')) {
    if (!control.getClientRects().length) continue;
    const style = getComputedStyle(control);
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const shown = control.tagName === 'SELECT' ? (control.selectedOptions[0]?.textContent || '') : control.value;
    const arrow = control.tagName === 'SELECT' ? 24 : 0;  // the select's own arrow
    const room = control.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - arrow;
    const name = control.getAttribute('aria-label') || control.id;
    if (pen.measureText(shown).width > room + 0.5) wrong.push(`${name}: "${shown}" wider than ${Math.round(room)} px`);
    if (control.getBoundingClientRect().right > edge + 1) wrong.push(`${name}: past the edge`);
  }
  return wrong;
}"""

# the text of an inline <svg> in #chart: the smallest font as drawn on the screen, pairs of texts whose boxes
# overlap, texts outside the image
CHART_TEXT = """() => {
  const svg = document.querySelector('#chart svg');
  const frame = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => ({
    text: t.textContent, box: t.getBoundingClientRect(),
    px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a }));
  const overlaps = [];
  texts.forEach((a, i) => texts.slice(i + 1).forEach((b) => {
    const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
    const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
    if (w > 0.5 && h > 0.5) overlaps.push([a.text, b.text]);
  }));
  const outside = texts.filter((t) => t.box.left < frame.left - 0.5 || t.box.right > frame.right + 0.5
    || t.box.top < frame.top - 0.5 || t.box.bottom > frame.bottom + 0.5).map((t) => t.text);
  return { smallest: Math.min(...texts.map((t) => t.px)), overlaps, outside, count: texts.length };
}"""


def cut_tables(root: Locator) -> list[str]:
    found: list[str] = root.evaluate(CUT_TABLES)
    return found


def cut_inputs(root: Locator) -> list[str]:
    found: list[str] = root.evaluate(CUT_INPUTS)
    return found


def chart_text(browser: Browser, svg: bytes, width: float) -> dict[str, Any]:
    """How the chart's text reads when the SVG is shown `width` px wide, as the page's <img> shows it (inline, so
    its texts can be measured one by one)."""
    page: Page = browser.new_page(viewport={"width": int(width) + 40, "height": 900})
    try:
        page.set_content("<body style='margin:0'><div id='chart' style='width:" + str(width) + "px'>"
                         + svg.decode("utf-8").split("?>", 1)[-1] + "</div></body>")
        page.evaluate("() => { const svg = document.querySelector('#chart svg');"
                      " svg.setAttribute('width', '100%'); svg.removeAttribute('height'); }")
        measured: dict[str, Any] = page.evaluate(CHART_TEXT)
        return measured
    finally:
        page.close()
