"""Run the page's scripts in Node on a minimal DOM, so page logic is tested without a browser (skipped where Node
is not installed): enough of a DOM for common.js's h(), the page's strings in a chosen locale, Intl from Node."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from service.web import STATIC_DIR

NODE = shutil.which("node")
# just enough of a DOM for common.js's h(): elements with children, attributes and text
FAKE_DOM = """
class Node { constructor() { this.children = []; } append(c) { this.children.push(c); } }
class Text extends Node { constructor(t) { super(); this.text = t; } }
class Element extends Node {
  constructor(tag) { super(); this.tag = tag; this.attrs = {}; }
  setAttribute(k, v) { this.attrs[k] = v; }
  set textContent(t) { this.children = [new Text(t)]; }
}
globalThis.Node = Node;
globalThis.document = { createElement: (t) => new Element(t), createTextNode: (t) => new Text(t),
                        documentElement: { lang: LOCALE },
                        getElementById: (id) => id === "strings" ? { textContent: STRINGS } : null };
const text = (n) => n instanceof Text ? n.text : n.children.map(text).join("");
const find = (n, tag) => n.tag === tag ? [n] : n.children.flatMap((c) => find(c, tag));
"""


def run_page(scripts: list[str], body: str, given: Any, locale: str = "en") -> Any:
    """Load `scripts` (files in static/) after common.js, run `body` with `given` as the constant INPUT, and return
    what it prints as JSON (`console.log(JSON.stringify(...))`)."""
    assert NODE is not None
    strings = (STATIC_DIR.parent / "locales" / f"{locale}.json").read_text(encoding="utf-8")
    script = "\n".join([f"const STRINGS = {json.dumps(strings)}; const LOCALE = {json.dumps(locale)};", FAKE_DOM,
                        *((STATIC_DIR / name).read_text(encoding="utf-8") for name in ["common.js", *scripts]),
                        "const INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));", body])
    done = subprocess.run([NODE, "-e", script], input=json.dumps(given), capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
