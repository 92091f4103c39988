"""Rust's built-in edges on a fixture workspace whose graph is written out by hand."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.cargoproject import FILES as CARGO_FILES
from tests.gitfixture import FixtureRepo
from warpline.graph.builtin import capture_builtin
from warpline.graph.model import EdgeCapture

F = "rust:function:"

FILES = {
    "Cargo.toml": '[workspace]\nmembers = ["core", "cli"]\n',
    "core/Cargo.toml": '[package]\nname = "shop-core"\nversion = "0.1.0"\n',
    "core/src/lib.rs": """pub mod cart;
mod money;
mod show;

pub use crate::cart::Cart;
pub use money::Amount;

macro_rules! euro {
    ($e:expr) => {
        crate::money::Amount::new($e)
    };
}

pub fn total(cart: &Cart) -> Amount {
    cart.sum()
}

pub fn price_all<P: Pricer>(p: &P, names: &[&str]) -> u32 {
    names.iter().map(|n| p.price(n)).sum()
}

pub fn dynamic(p: &dyn Pricer) -> u32 {
    p.price("x")
}

pub enum Kind {
    Single(Cart),
    Nothing,
}

pub fn bound_by_patterns(kind: &Kind, carts: &[Cart], first: Option<Cart>) -> u32 {
    let mut n = 0;
    for c in carts {
        n += c.sum().cents();
    }
    if let Some(f) = first {
        n += f.sum().cents();
    }
    match *kind {
        Kind::Single(ref c) => n + c.sum().cents(),
        Kind::Nothing => n,
    }
}

pub fn split_total(cart: &Cart) -> u32 {
    let (amount, _count) = pair(cart);
    amount.cents()
}

fn pair(cart: &Cart) -> (Amount, u32) {
    (cart.sum(), 0)
}

fn first_cart(cart: &Cart) -> Option<&Cart> {
    Some(cart)
}

pub fn rebinds(cart: &Cart, amount: Amount) -> u32 {
    let total = match first_cart(cart) {
        Some(amount) => amount.sum().cents(),
        None => 0,
    };
    total + amount.value()
}

pub fn unknown_receiver(values: Vec<u32>) -> usize {
    values.iter().filter(|v| v.is_free()).count()
}

pub trait Pricer {
    fn price(&self, name: &str) -> u32;
}

pub struct Fixed;

impl Pricer for Fixed {
    fn price(&self, _name: &str) -> u32 {
        let amount: Amount = euro!(1);
        amount.cents()
    }
}

pub struct Free;

impl Free {
    pub fn is_free(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals() {
        let cart = Cart::new();
        assert_eq!(total(&cart).cents(), 0);
    }
}
""",
    "core/src/cart.rs": """use super::money::Amount;

pub struct Cart {
    items: Vec<Amount>,
    owner: Owner,
}

pub struct Owner {
    name: String,
}

impl Owner {
    pub fn greet(&self) -> usize {
        self.name.len()
    }
}

impl Cart {
    pub fn new() -> Self {
        Cart { items: Vec::new(), owner: Owner { name: String::new() } }
    }

    pub fn sum(&self) -> Amount {
        let mut total = Amount::new(0);
        for item in &self.items {
            total = total.add(item);
        }
        self.owner.greet();
        total
    }

    pub fn value(&self) -> u32 {
        0
    }
}
""",
    "core/src/money.rs": """#[derive(Clone, Copy)]
pub struct Amount(u32);

impl Amount {
    pub fn new(cents: u32) -> Amount {
        Amount(cents)
    }

    pub fn add(&self, other: &Amount) -> Amount {
        Amount(self.0 + other.cents())
    }

    pub fn cents(&self) -> u32 {
        self.0
    }

    pub fn value(&self) -> u32 {
        self.0
    }
}
""",
    "core/src/show.rs": """use crate::money::Amount;

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.cents())
    }
}
""",
    "cli/Cargo.toml": ('[package]\nname = "shop-cli"\nversion = "0.1.0"\n\n[dependencies]\n'
                       'shop-core = { path = "../core" }\n'),
    "cli/src/main.rs": """use shop_core::{total, Cart};

fn main() {
    let cart = Cart::new();
    println!("{}", total(&cart).cents());
}
""",
    "cli/tests/run.rs": """#[test]
fn runs() {
    let cart = shop_core::Cart::new();
    assert_eq!(shop_core::total(&cart).cents(), 0);
}
""",
}

C = f"{F}shop_core"
EXPECTED = {
    # a call through a re-export (pub use crate::cart::Cart), by the receiver's type
    (f"{C}.total", f"{C}.cart.Cart.impl#<>.sum", "calls"),
    (f"{C}.total", "rust:struct:shop_core.cart.Cart", "references"),
    # super:: import, `let x = T::new()`, a field's type, Self
    (f"{C}.cart.Cart.impl#<>.sum", f"{C}.money.Amount.impl#<>.new", "calls"),
    (f"{C}.cart.Cart.impl#<>.sum", f"{C}.money.Amount.impl#<>.add", "calls"),
    (f"{C}.cart.Cart.impl#<>.sum", f"{C}.cart.Owner.impl#<>.greet", "calls"),
    (f"{C}.cart.Cart.impl#<>.new", "rust:struct:shop_core.cart.Cart", "references"),
    # names bound by `for`, `if let Some(..)` and a `match` arm's variant: their types
    (f"{C}.bound_by_patterns", f"{C}.cart.Cart.impl#<>.sum", "calls"),
    (f"{C}.bound_by_patterns", f"{C}.money.Amount.impl#<>.cents", "calls"),
    # a match arm's binding types the uses inside its arm only (the parameter after it)
    (f"{C}.rebinds", f"{C}.cart.Cart.impl#<>.sum", "calls"),
    (f"{C}.rebinds", f"{C}.money.Amount.impl#<>.value", "calls"),
    # a tuple's element by the declared tuple type
    (f"{C}.split_total", f"{C}.money.Amount.impl#<>.cents", "calls"),
    # a parameter typed by a generic bound: the trait's method
    (f"{C}.price_all", f"{C}.Pricer.~trait.price", "calls"),
    (f"{C}.dynamic", f"{C}.Pricer.~trait.price", "calls"),
    # a macro of the crate; a `let` typed where the value is a macro's
    (f"{C}.Fixed.impl[Pricer].price", "rust:macro:shop_core.euro", "calls"),
    (f"{C}.Fixed.impl[Pricer].price", f"{C}.money.Amount.impl#<>.cents", "calls"),
    # a trait impl references its trait and its self type
    ("rust:impl:shop_core.Fixed.impl[Pricer]", "rust:trait:shop_core.Pricer", "references"),
    ("rust:impl:shop_core.Fixed.impl[Pricer]", "rust:struct:shop_core.Fixed", "references"),
    # a test inside #[cfg(test)] mod tests, through `use super::*` and assert_eq!
    (f"{C}.tests.totals", f"{C}.total", "calls"),
    (f"{C}.tests.totals", f"{C}.cart.Cart.impl#<>.new", "calls"),
    (f"{C}.tests.totals", f"{C}.money.Amount.impl#<>.cents", "calls"),
    # another crate of the workspace, by its library name; an integration test
    (f"{F}shop_cli.main", f"{C}.total", "calls"),
    (f"{F}shop_cli.main", f"{C}.cart.Cart.impl#<>.new", "calls"),
    (f"{F}shop_cli~tests.run.runs", f"{C}.total", "calls"),
}
CANDIDATES = {
    # dispatch over the implementors of the trait method called
    (f"{C}.price_all", f"{C}.Fixed.impl[Pricer].price", "calls"),
    (f"{C}.dynamic", f"{C}.Fixed.impl[Pricer].price", "calls"),
    # a receiver of unknown type (a closure's parameter): the one method of that name
    (f"{C}.unknown_receiver", f"{C}.Free.impl#<>.is_free", "calls"),
}


# A trait from outside the repository (Display): its methods are called by that code on
# the type's values: the type reaches them, said as `dispatch`.
DISPATCH = {("rust:struct:shop_core.money.Amount",
             f"{C}.show.Amount.impl[Display].fmt", "calls")}


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> EdgeCapture:
    repo = FixtureRepo(tmp_path_factory.mktemp("rustgraph"))
    repo.commit(dict(FILES))
    handle = pygit2.Repository(str(repo.path))
    return capture_builtin(handle, handle.head.peel(pygit2.Commit))


def _edges(capture: EdgeCapture, certain: bool) -> set[tuple[str, str, str]]:
    return {(e.source_locator, e.target_locator, e.kind) for e in capture.edges
            if (e.confidence == "resolved") == certain and e.source_locator.startswith("rust:")}


def test_every_written_edge_is_found(captured: EdgeCapture) -> None:
    assert EXPECTED - _edges(captured, True) == set()


def test_guesses_are_candidates_never_certain(captured: EdgeCapture) -> None:
    certain = _edges(captured, True)
    dispatch = {(e.source_locator, e.target_locator, e.kind) for e in captured.edges
                if e.confidence == "dispatch"}
    assert DISPATCH <= dispatch and not DISPATCH & certain
    assert CANDIDATES - _edges(captured, False) == set()
    assert not CANDIDATES & certain
    # Nothing of the unknown receiver's call is certain, nor a method of another type.
    assert not {e for e in certain if e[0] == f"{C}.unknown_receiver"}
    assert (f"{C}.total", f"{C}.cart.Owner.impl#<>.greet", "calls") not in certain
    assert (f"{C}.rebinds", f"{C}.cart.Cart.impl#<>.value", "calls") not in certain


def test_tests_are_discovered_with_their_targets(captured: EdgeCapture) -> None:
    facts = (captured.discovery or {})["cargo"]
    tests = {row[0]: row[1:] for row in facts["tests"]}
    assert tests == {
        "core/src/lib.rs::tests::totals": [f"{C}.tests.totals", "lib", "shop_core", "core",
                                           False],
        "cli/tests/run.rs::runs": [f"{F}shop_cli~tests.run.runs", "test", "run", "cli", False],
    }
    assert facts["packages"]["cli"]["deps"] == ["core"]


def test_the_cargo_fixture_captures_its_generated_test(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path)
    repo.commit(dict(CARGO_FILES))
    handle = pygit2.Repository(str(repo.path))
    capture = capture_builtin(handle, handle.head.peel(pygit2.Commit))
    tests = {row[0]: row for row in (capture.discovery or {})["cargo"]["tests"]}
    assert tests["shapes/src/lib.rs::tests::generated_two"][1] == "rust:module:shapes.tests"
    assert tests["shapes/src/lib.rs::tests::slow"][5] is True
