"""Mocha's row: ``npx mocha <the script's options> <files> --grep '^(…)$'``.

The JavaScript runners share their pieces (``js_row`` makes the row; ``js_detect``,
``js_files``, ``js_names``, ``js_command``, ``js_discovery``): docs/runners.md.
"""

from __future__ import annotations

from warpline.runners.js_row import js_row

MOCHA = js_row(
    "mocha",
    config_files=("package.json", ".mocharc.js", ".mocharc.cjs", ".mocharc.yaml", ".mocharc.yml",
                  ".mocharc.jsonc", ".mocharc.json"),
    example_ids=("test/app.js::app > routes", "test/app.js"),
)
