"""Locators in loomweave's dialect, derived from repo-relative paths (DESIGN §3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpline.lang.locators import (
    class_locator,
    dotted_module,
    entity_locator,
    file_locator,
    function_locator,
    is_python_path,
    module_locator,
)


@pytest.mark.parametrize(
    ("path", "dotted"),
    [
        ("src/demo/auth.py", "demo.auth"),
        ("httpx/_client.py", "httpx._client"),
        ("pkg/__init__.py", "pkg"),
        ("src/pkg/__init__.py", "pkg"),
        ("setup.py", "setup"),
        ("src.py", "src"),
        ("src/src/x.py", "src.x"),
        ("a/src/b.py", "a.src.b"),
        ("tests/test_x.py", "tests.test_x"),
    ],
)
def test_dotted_module_follows_the_loomweave_rules(path: str, dotted: str) -> None:
    assert dotted_module(path) == dotted


@pytest.mark.parametrize(
    "path", ["README.md", "pkg/stubs.pyi", "tool.pyw", "__init__.py", "src/__init__.py"]
)
def test_paths_that_name_no_python_module_have_no_dotted_name(path: str) -> None:
    assert dotted_module(path) is None


def test_only_dot_py_files_are_python_paths() -> None:
    assert is_python_path("a/b.py")
    assert not is_python_path("a/b.pyi")
    assert not is_python_path("a/b.py.bak")


def test_file_locators_use_forward_slashes_and_keep_the_extension() -> None:
    assert file_locator("docs/index.md") == "core:file:docs/index.md"
    # git's paths use '/'; a backslash is part of a name (issue 38: `a\b.py` is not a/b.py)
    assert file_locator("docs\\index.md") == "core:file:docs\\index.md"
    assert file_locator("./a.py") == "core:file:a.py"


def test_entity_locators_join_the_dotted_module_and_the_qualname() -> None:
    assert module_locator("demo.auth") == "python:module:demo.auth"
    assert class_locator("demo.auth", "User.Meta") == "python:class:demo.auth.User.Meta"
    assert (
        function_locator("demo.auth", "login.<locals>.check")
        == "python:function:demo.auth.login.<locals>.check"
    )
    assert entity_locator("module", "demo", "") == "python:module:demo"
    assert entity_locator("function", "demo", "C.m") == "python:function:demo.C.m"
    assert entity_locator("class", "demo", "C") == "python:class:demo.C"


_PART = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: s not in ("src", "__init__")
)


@given(parts=st.lists(_PART, min_size=1, max_size=5), under_src=st.booleans())
def test_dotted_names_are_the_path_components_joined_with_dots(
    parts: list[str], under_src: bool
) -> None:
    path = "/".join(parts) + ".py"
    assert dotted_module(("src/" if under_src else "") + path) == ".".join(parts)
    package = "/".join(parts) + "/__init__.py"
    assert dotted_module(package) == ".".join(parts)
