"""Go's built-in edges on a fixture module whose graph is written out by hand."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.graph.builtin import capture_builtin
from warpline.graph.model import EdgeCapture

P = "example.com/shop"
F = f"go:function:{P}"
S = f"go:struct:{P}"
IF = f"go:interface:{P}"
M = f"go:module:{P}"

FILES = {
    "go.mod": f"module {P}\n\ngo 1.21\n",
    "cart/cart.go": """package cart

import (
	"fmt"
	str "strings"

	"example.com/shop/money"
)

// Pricer prices an item.
type Pricer interface {
	Price(name string) money.Amount
}

// Base is embedded.
type Base struct{ id int }

// ID is promoted to Cart.
func (b *Base) ID() int { return b.id }

// Cart holds items.
type Cart struct {
	Base
	items  []string
	pricer Pricer
	owner  *Owner
}

// Owner owns a cart.
type Owner struct{ name string }

// Greet greets.
func (o *Owner) Greet() string { return "hi " + o.name }

var defaultTax = money.Amount(3)

// New makes a cart.
func New(p Pricer) *Cart { return &Cart{pricer: p} }

// Total sums the prices.
func (c *Cart) Total() money.Amount {
	total := money.Zero()
	for _, item := range c.items {
		total = total.Add(c.pricer.Price(item))
	}
	fmt.Println(str.ToUpper("x"), c.ID(), c.owner.Greet())
	return total.Add(defaultTax)
}

// Add adds an item.
func (c *Cart) Add(item string) { c.items = append(c.items, item) }

// shadow has a local named like a package function.
func shadow() int {
	New := func(x int) int { return x }
	return New(1)
}

// unknown calls a method on a value of unknown type.
func unknown(v interface{ Greet() string }) string {
	return v.Greet()
}
""",
    "cart/flat.go": """package cart

import "example.com/shop/money"

// Flat prices everything the same.
type Flat struct{ each money.Amount }

// Price implements Pricer.
func (f Flat) Price(string) money.Amount { return f.each }
""",
    "cart/more.go": """package cart

import "example.com/shop/money"

// Set is a set of names.
type Set map[string]bool

// Has reports membership.
func (s Set) Has(name string) bool { return s[name] }

// Kinds reads a type switch, make and a local named like an import.
func Kinds(v interface{}, token Owner) bool {
	s := make(Set)
	switch w := v.(type) {
	case *Owner:
		w.Greet()
	case Flat:
		w.Price("x")
	}
	money := money.Zero()
	_ = money
	return s.Has("a") && token.Greet() != ""
}

// Maker makes owners.
type Maker func() *Owner

// Each reads a switch alias after its switch and a named function type's result.
func Each(p Pricer, make Maker) {
	switch p := p.(type) {
	case Flat:
		_ = p
	}
	p.Price("x")
	make().Greet()
}
""",
    "money/money.go": """package money

// Amount is money.
type Amount int

// Zero is nothing.
func Zero() Amount { return 0 }

// Add adds.
func (a Amount) Add(b Amount) Amount { return a + b }
""",
    "cart/cart_test.go": """package cart_test

import (
	"testing"

	"example.com/shop/cart"
	"example.com/shop/money"
)

type row struct{ pricer cart.Pricer }

var rows = [...]row{{pricer: cart.Flat{}}}

func TestRows(t *testing.T) {
	for _, r := range rows {
		_ = r.pricer.Price("x").Add(1)
	}
}

func TestTotal(t *testing.T) {
	c := cart.New(cart.Flat{})
	c.Add("a")
	if c.Total() != money.Amount(3) {
		t.Fatal("total")
	}
}
""",
}


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> EdgeCapture:
    repo = FixtureRepo(tmp_path_factory.mktemp("gograph") / "repo")
    sha = repo.commit(dict(FILES), "shop")
    return capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))


def _edges(capture: EdgeCapture, confidence: str = "resolved") -> set[tuple[str, str, str]]:
    return {(e.source_locator, e.target_locator, e.kind) for e in capture.edges
            if e.confidence == confidence}


def test_entities_are_the_go_rows_locators(capture: EdgeCapture) -> None:
    found = {e.locator: e for e in capture.entities}
    assert found[f"{F}/cart.Cart.Total"].kind == "function"
    assert found[f"{S}/cart.Cart"].kind == "class"
    assert found[f"{M}/cart"].kind == "module"
    assert found[f"{F}/cart.TestTotal"].path == "cart/cart_test.go"


def test_calls_resolve_by_receiver_type_imports_and_embedding(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    total = f"{F}/cart.Cart.Total"
    assert (total, f"{F}/money.Zero", "calls") in edges  # import path, not alias
    assert (total, f"{F}/money.Amount.Add", "calls") in edges  # := of a result
    assert (total, f"{IF}/cart.Pricer", "calls") in edges  # an interface's method
    assert (total, f"{F}/cart.Base.ID", "calls") in edges  # promoted by embedding
    assert (total, f"{F}/cart.Owner.Greet", "calls") in edges  # a field's type
    assert (total, f"{M}/cart", "references") in edges  # a package variable
    assert (f"{S}/cart.Cart", f"{S}/cart.Base", "references") in edges  # embedding
    assert (f"{S}/cart.Cart", f"{IF}/cart.Pricer", "references") in edges  # a field type


def test_scopes_follow_go_type_switches_make_and_statement_ends(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    kinds = f"{F}/cart.Kinds"
    assert (kinds, f"{F}/cart.Set.Has", "calls") in edges  # make(Set)
    assert (kinds, f"{F}/cart.Owner.Greet", "calls") in edges  # case *Owner; a parameter
    assert (kinds, f"{F}/cart.Flat.Price", "calls") in edges  # case Flat
    assert (kinds, f"{F}/money.Zero", "calls") in edges  # `money := money.Zero()`
    assert (kinds, f"{S}/cart.Owner", "references") in edges  # named `token`, typed Owner
    each = f"{F}/cart.Each"
    assert (each, f"{IF}/cart.Pricer", "calls") in edges  # the parameter, after the switch
    assert (each, f"{F}/cart.Owner.Greet", "calls") in edges  # a named function type


def test_tests_reach_code_across_the_external_test_package(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    test = f"{F}/cart.TestTotal"
    for target in (f"{F}/cart.New", f"{F}/cart.Cart.Add", f"{F}/cart.Cart.Total"):
        assert (test, target, "calls") in edges
    assert (test, f"go:type:{P}/money.Amount", "references") in edges
    assert (test, f"{S}/cart.Flat", "references") in edges


def test_types_of_the_external_test_package_and_interface_results(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    test = f"{F}/cart.TestRows"
    assert (test, f"{IF}/cart.Pricer", "calls") in edges  # a field of a test-package type
    assert (test, f"{F}/money.Amount.Add", "calls") in edges  # an interface method's result


def test_an_interface_call_gives_dispatch_candidates_never_certain(capture: EdgeCapture) -> None:
    total = f"{F}/cart.Cart.Total"
    assert (total, f"{F}/cart.Flat.Price", "calls") in _edges(capture, "dispatch")
    assert (total, f"{F}/cart.Flat.Price", "calls") not in _edges(capture)
    assert (f"{S}/cart.Flat", f"{IF}/cart.Pricer", "references") in _edges(capture, "implements")


def test_a_local_shadows_a_package_function(capture: EdgeCapture) -> None:
    assert not any(s == f"{F}/cart.shadow" and t == f"{F}/cart.New"
                   for s, t, _ in _edges(capture))


def test_an_unknown_receiver_gives_a_marked_candidate_and_counts(capture: EdgeCapture) -> None:
    guess = (f"{F}/cart.unknown", f"{F}/cart.Owner.Greet", "calls")
    assert guess in _edges(capture, "candidate") and guess not in _edges(capture)
    assert capture.unresolved >= 1


def test_the_capture_carries_go_tests_and_package_imports(capture: EdgeCapture) -> None:
    facts = (capture.discovery or {})["go"]
    assert facts["tests"] == [
        ["cart/cart_test.go::TestRows", f"{F}/cart.TestRows", "test", []],
        ["cart/cart_test.go::TestTotal", f"{F}/cart.TestTotal", "test", []]]
    assert facts["packages"][f"{P}/cart"]["imports"] == [f"{P}/money"]
    assert facts["packages"][f"{P}/cart"]["test_imports"] == [f"{P}/money"]


def test_python_edges_are_unchanged_beside_go(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    py = {"pkg/a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"}
    alone = repo.commit(dict(py), "py")
    both = repo.commit({"go.mod": f"module {P}\n", "m/m.go": "package m\n\nfunc A() { B() }\n\n"
                        "func B() {}\n"}, "go")
    python_only = capture_builtin(repo.repo, repo.repo[alone].peel(pygit2.Commit))
    joined = capture_builtin(repo.repo, repo.repo[both].peel(pygit2.Commit))
    assert set(python_only.edges) <= set(joined.edges)
    assert (f"go:function:{P}/m.A", f"go:function:{P}/m.B", "calls") in _edges(joined)
