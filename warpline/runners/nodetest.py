"""Node's own test runner's row: ``node --test --test-name-pattern='^(…)$' <files>``.

The JavaScript runners share their pieces (``js_row`` makes the row; ``js_detect``,
``js_files``, ``js_names``, ``js_command``, ``js_discovery``): docs/runners.md.
"""

from __future__ import annotations

from warpline.runners.js_row import js_row

NODE_TEST = js_row(
    "node-test",
    config_files=("package.json",),
    example_ids=("test/a.test.mjs::suite > case", "test/a.test.mjs"),
)
