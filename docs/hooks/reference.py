"""MkDocs hook: pages the site builds from the repository rather than from docs/ (`hooks:` in mkdocs.yml).

- The field reference (docs/reference/*.md) is rendered from the pydantic models by `service.core.schema_doc`, so
  it says what the API's schema says; a field without a description is a warning, which `--strict` fails on.
- Documents that live beside the code they describe (the workload compiler's coefficients, the price-feed format,
  the sources of the bundled data) are published as they are, so the guide links to them without a copy.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from service.core.schema_doc import PAGES, render, undocumented

ROOT = Path(__file__).resolve().parents[2]
# repository file -> its path in the site
REPOSITORY_PAGES = {
    "solvers/workload/README.md": "workloads/compiler.md",
    "pricing/sources/FEED_FORMAT.md": "prices/feed-format.md",
    "pricing/data/README.md": "data/index.md",
    **{f"pricing/data/{p.name}": f"data/{p.name}" for p in sorted((ROOT / "pricing/data").glob("*.SOURCES.md"))},
}
log = logging.getLogger("mkdocs.hooks.reference")


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    for page in PAGES:
        for field in undocumented(page):
            log.warning("%s: %s has no description (add Field(description=...) to the model)", page.path, field)
        files.append(File.generated(config, page.path, content=render(page)))
    for source, target in REPOSITORY_PAGES.items():
        files.append(File.generated(config, target, abs_src_path=str(ROOT / source)))
    return files
