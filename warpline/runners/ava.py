"""AVA's row: ``npx ava <files> --match '<title>'``.

The JavaScript runners share their pieces (``js_row`` makes the row; ``js_detect``,
``js_files``, ``js_names``, ``js_command``, ``js_discovery``): docs/runners.md.
"""

from __future__ import annotations

from warpline.runners.js_row import js_row

AVA = js_row(
    "ava",
    config_files=("package.json", "ava.config.js", "ava.config.mjs", "ava.config.cjs"),
    example_ids=("test/retry.ts::works on timeout", "test/retry.ts"),
)
