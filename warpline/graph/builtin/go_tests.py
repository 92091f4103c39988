"""The test facts of Go's capture: every test ``go test`` runs, and each package's imports.

The rules are the ``go test`` row's (``warpline.runners.gotest_rules``); this module only
gathers them over a commit's scanned files, with each package's directory and the
repository packages its files and its test files import (the floor of a changed package:
its own tests and the tests of every package importing it).
"""

from __future__ import annotations

from typing import Any

from warpline.graph.builtin.go_resolve import Resolver
from warpline.graph.builtin.go_scan import FileScan
from warpline.lang import GO
from warpline.runners.gotest_rules import file_tests

__all__ = ["discovery_facts"]


def discovery_facts(scans: list[tuple[str, FileScan]], resolver: Resolver) -> dict[str, Any]:
    """``{"tests": [[id, locator, kind, subtests], ...], "packages": {import path: {"dir",
    "imports", "test_imports"}}}`` (JSON-ready, sorted)."""
    tests = []
    packages: dict[str, dict[str, Any]] = {}
    known = {pkg.path for pkg in resolver.scopes.values()}
    for import_path, scan in scans:
        facts = packages.setdefault(import_path, {
            "dir": scan.path.rpartition("/")[0], "imports": set(), "test_imports": set()})
        bucket = facts["test_imports"] if scan.path.endswith("_test.go") else facts["imports"]
        bucket.update(p for p in scan.imports.values() if p in known and p != import_path)
        for test in file_tests(scan.path, scan.root, scan.imports):
            tests.append([test.test_id, GO.locator(("function", test.name), import_path),
                          test.kind, test.subtests])
    return {
        "tests": sorted(tests),
        "packages": {path: {"dir": facts["dir"], "imports": sorted(facts["imports"]),
                            "test_imports": sorted(facts["test_imports"])}
                     for path, facts in sorted(packages.items())},
    }
