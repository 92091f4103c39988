"""Every envelope the test suite produces is validated against its contract, by construction.

The suite's conftest puts this directory on ``PYTHONPATH``, so every Python process a test
starts (the CLI, ``warpline-mcp``, hook ingests, bench children) loads this module at start
up. It waits for ``warpline.registry`` to be imported (a meta-path finder, so a process that
never calls a tool pays nothing) and wraps ``registry.dispatch``, the one place every tool
call runs: a success envelope, or the error payload of a ``WarplineError``, that breaks its
contract raises ``AssertionError`` there, which the test sees as a failed call.
The conftest applies the same wrapper in the test process itself.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

TARGET = "warpline.registry"
checked = {"envelopes": 0}
_COMPILED: dict[str, Any] = {}


def certainly_valid(obj: Any) -> bool:
    """The contract file's verdict from a compiled validator (``jsonschema-rs``, draft
    2020-12 like the reference): a 50,000-item churn envelope took ~8.5 s in ``jsonschema``
    and takes ~0.15 s here. Only a "valid" is taken from it: whatever it rejects, or cannot
    judge (not installed, an unknown schema), goes to ``validate_envelope``, the reference,
    which decides and names the error."""
    try:
        import jsonschema_rs
    except ImportError:
        return False
    from warpline.contracts_io import envelope_schema_ids, shared_contract

    schema_id = obj.get("schema") if isinstance(obj, dict) else None
    if schema_id not in envelope_schema_ids():
        return False
    validator = _COMPILED.get(schema_id)
    if validator is None:
        validator = jsonschema_rs.Draft202012Validator(shared_contract(f"{schema_id}.json"))
        _COMPILED[schema_id] = validator
    return bool(validator.is_valid(obj))


def check(obj: Any) -> None:
    from warpline.contracts_io import validate_envelope

    if not certainly_valid(obj):
        try:
            validate_envelope(obj)
        except Exception as exc:  # ValueError (unknown schema) or jsonschema.ValidationError
            raise AssertionError(f"an envelope breaks its contract: {exc}") from exc
    checked["envelopes"] += 1


def install(registry: ModuleType) -> None:
    """Wrap ``registry.dispatch`` (once) so each result and each error is checked."""
    original: Callable[..., dict[str, Any]] = registry.dispatch
    if getattr(original, "envelope_guard", False):
        return
    from warpline.errors import WarplineError

    def guarded(spec: Any, arguments: dict[str, Any], cwd: Any) -> dict[str, Any]:
        try:
            envelope = original(spec, arguments, cwd)
        except WarplineError as exc:
            check(exc.to_payload())
            raise
        check(envelope)
        return envelope

    guarded.envelope_guard = True  # type: ignore[attr-defined]
    setattr(registry, "dispatch", guarded)  # noqa: B010 (a module attribute, on purpose)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if name != TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        # A loader of its own: the found one may serve other modules too (pytest's
        # assertion-rewriting hook loads every module of a package that ships a pytest
        # plugin, warpline's included), so it is wrapped, never patched.
        spec.loader = _GuardLoader(spec.loader)
        return spec


class _GuardLoader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        install(module)


if TARGET in sys.modules:
    install(sys.modules[TARGET])
else:
    sys.meta_path.insert(0, _Finder())
