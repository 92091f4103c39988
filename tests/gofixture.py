"""A small Go project for the ``go test`` row's tests: no dependencies (nothing to
download), two packages in the root module, an external test package, subtests whose
names need regexp escaping, an example with output, a fuzz target, a benchmark, and a
second module in a subdirectory.

Every test, subtest and example appends its name to the file named by ``RUNLOG`` (when
set), so a test can see exactly what a command ran.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

__all__ = ["FILES", "go_env", "needs_go", "ran", "write"]

GO = shutil.which("go")
needs_go = pytest.mark.skipif(GO is None, reason="the Go toolchain (go) is not installed")

_LOG = '''
func logName(name string) {
	path := os.Getenv("RUNLOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Fprintln(f, name)
}
'''



def _test_file(package: str, imports: str = "") -> str:
    """A test file's package clause, imports (with ``logName``'s) and ``logName``."""
    return (f'package {package}\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n{imports})\n'
            + _LOG)


FILES: dict[str, str] = {
    "go.mod": "module example.com/demo\n\ngo 1.18\n",
    "calc/calc.go": '''package calc

// Add adds.
func Add(a, b int) int { return a + b }

// Sub subtracts.
func Sub(a, b int) int { return a - b }

// Scale multiplies through a Scaler.
type Scaler struct{ By int }

// Apply scales x.
func (s *Scaler) Apply(x int) int { return Mul(x, s.By) }

// Mul multiplies.
func Mul(a, b int) int { return a * b }
''',
    "calc/calc_test.go": _test_file("calc") + '''
func TestAdd(t *testing.T) {
	logName(t.Name())
	if Add(1, 2) != 3 {
		t.Fatal("add")
	}
}

func TestSub(t *testing.T) {
	logName(t.Name())
	if Sub(3, 2) != 1 {
		t.Fatal("sub")
	}
}

func TestTable(t *testing.T) {
	logName(t.Name())
	t.Run("case one", func(t *testing.T) {
		logName(t.Name())
		if Add(1, 1) != 2 {
			t.Fatal("one")
		}
	})
	t.Run("a+b (x)", func(t *testing.T) {
		logName(t.Name())
		t.Run("deep.er", func(t *testing.T) { logName(t.Name()) })
	})
	t.Run("x.y[1]", func(t *testing.T) { logName(t.Name()) })
}

func TestAddition(t *testing.T) { logName(t.Name()) }

func FuzzAdd(f *testing.F) {
	f.Add(1, 2)
	f.Fuzz(func(t *testing.T, a, b int) {
		logName("FuzzAdd")
		if Add(a, b) != a+b {
			t.Fatal("fuzz")
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	logName(b.Name())
	for i := 0; i < b.N; i++ {
		Add(1, 2)
	}
}
''',
    "calc/scale_test.go": _test_file("calc_test", '\n\t"example.com/demo/calc"\n') + '''
func TestScale(t *testing.T) {
	logName(t.Name())
	s := &calc.Scaler{By: 3}
	if s.Apply(2) != 6 {
		t.Fatal("scale")
	}
}

func ExampleAdd() {
	logName("ExampleAdd")
	fmt.Println(calc.Add(2, 2))
	// Output: 4
}

func ExampleSub() {
	fmt.Println(calc.Sub(2, 2))
}
''',
    "app/app.go": '''package app

import "example.com/demo/calc"

// Total sums through calc.
func Total(xs []int) int {
	total := 0
	for _, x := range xs {
		total = calc.Add(total, x)
	}
	return total
}
''',
    "app/app_test.go": _test_file("app") + '''
func TestTotal(t *testing.T) {
	logName(t.Name())
	if Total([]int{1, 2, 3}) != 6 {
		t.Fatal("total")
	}
}

func TestAdd(t *testing.T) { logName("app." + t.Name()) }
''',
    "tools/go.mod": "module example.com/tools\n\ngo 1.18\n",
    "tools/lint/lint.go": '''package lint

// Clean reports whether s has no tabs.
func Clean(s string) bool {
	for _, r := range s {
		if r == '\\t' {
			return false
		}
	}
	return true
}
''',
    "tools/lint/lint_test.go": _test_file("lint") + '''
func TestClean(t *testing.T) {
	logName("tools." + t.Name())
	if !Clean("a b") {
		t.Fatal("clean")
	}
}

func TestDirty(t *testing.T) { logName("tools." + t.Name()) }
''',
}


def write(root: Path, files: dict[str, str] | None = None) -> Path:
    for rel, text in (files or FILES).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def go_env(log: Path | None = None) -> dict[str, str]:
    """The environment a fixture's ``go`` runs in: no network, no module downloads, the
    machine's own toolchain."""
    env = dict(os.environ)
    env.update({"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
                "GOWORK": "off"})
    if log is not None:
        env["RUNLOG"] = str(log)
    return env


def ran(log: Path) -> list[str]:
    """The names the tests appended to ``log``, sorted (empty when nothing ran)."""
    if not log.exists():
        return []
    return sorted(line for line in log.read_text(encoding="utf-8").splitlines() if line)
