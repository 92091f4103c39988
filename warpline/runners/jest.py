"""Jest's row: ``npx jest --runTestsByPath <files> -t '^(…)$'``.

The JavaScript runners share their pieces (``js_row`` makes the row; ``js_detect``,
``js_files``, ``js_names``, ``js_command``, ``js_discovery``): docs/runners.md.
"""

from __future__ import annotations

from warpline.runners.js_row import js_row

JEST = js_row(
    "jest",
    config_files=("package.json", "jest.config.js", "jest.config.ts", "jest.config.mjs",
                  "jest.config.cjs", "jest.config.json"),
    example_ids=("test/a.test.js::math > adds", "test/a.test.js"),
)
