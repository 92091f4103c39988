"""Vitest's row: ``npx vitest run <files> -t '^(…)$'``.

The JavaScript runners share their pieces (``js_row`` makes the row; ``js_detect``,
``js_files``, ``js_names``, ``js_command``, ``js_discovery``): docs/runners.md.
"""

from __future__ import annotations

from warpline.runners.js_row import js_row

VITEST = js_row(
    "vitest",
    config_files=("package.json", "vitest.config.ts", "vitest.config.mts", "vitest.config.js",
                  "vitest.config.mjs", "vite.config.ts", "vite.config.js"),
    example_ids=("src/a.test.ts::math > adds", "src/a.test.ts"),
    lead=True,
)
