"""A small real project with memoized helpers, for ``bench_mutants.py``.

``shop``: a currency table and a price parser (``lru_cache``, with and without arguments),
a tax rate (``cache``), a parsed net price (``cached_property``) and a region table read by
a cached lookup; each helper is called by several functions, and the tests (five files)
ask about the same values, so a helper's body runs in the first test that calls it and
every later one reads its cache. ``write(root)`` writes and commits it (real git).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PRICES = '''\
import functools
from functools import lru_cache


@lru_cache(maxsize=None)
def currency_table():
    return {"EUR": 1.0, "USD": 1.1, "GBP": 0.9}


def convert(amount, currency):
    return round(amount * currency_table()[currency], 2)


def known(currency):
    return currency in currency_table()


@functools.lru_cache(maxsize=32)
def parse_price(text):
    amount, currency = text.split()
    return float(amount), currency


def price_in_eur(text):
    amount, currency = parse_price(text)
    return round(amount / currency_table()[currency], 2)


def is_free(text):
    return parse_price(text)[0] == 0
'''

CATALOG = '''\
from functools import cache, cached_property

from shop.prices import parse_price


@cache
def regions():
    return {"eu": 0.2, "us": 0.07}


@cache
def tax_rate(region):
    return regions().get(region, 0.0)


class Item:
    def __init__(self, sku, price, region="eu"):
        self.sku, self.price, self.region = sku, price, region

    @cached_property
    def net(self):
        return parse_price(self.price)[0]

    def gross(self):
        return round(self.net * (1 + tax_rate(self.region)), 2)

    def label(self):
        return f"{self.sku}: {self.gross()}"


def total(items):
    return round(sum(item.gross() for item in items), 2)


def taxed_regions():
    return sorted(regions())
'''

TESTS = {
    "tests/test_a_prices.py": '''\
from shop.prices import convert, is_free, known, price_in_eur


def test_convert():
    assert convert(10, "USD") == 11.0


def test_known():
    assert known("EUR")


def test_price_in_eur():
    assert price_in_eur("11 USD") == 10.0


def test_is_free():
    assert not is_free("10 EUR")
''',
    "tests/test_b_catalog.py": '''\
from shop.catalog import Item, taxed_regions


def test_gross():
    assert Item("a", "10 EUR").gross() == 12.0


def test_label():
    assert Item("a", "10 EUR").label() == "a: 12.0"


def test_regions():
    assert taxed_regions() == ["eu", "us"]
''',
    "tests/test_c_checkout.py": '''\
from shop.catalog import Item, total
from shop.prices import convert


def test_total():
    assert total([Item("a", "10 EUR"), Item("b", "10 EUR")]) == 24.0


def test_total_in_usd():
    assert convert(total([Item("a", "10 EUR")]), "USD") == 13.2
''',
    "tests/test_d_again.py": '''\
from shop.prices import is_free, known, price_in_eur


def test_known_again():
    assert not known("JPY")


def test_free_again():
    assert not is_free("11 USD")


def test_price_again():
    assert price_in_eur("10 EUR") == 10.0
''',
    "tests/test_e_plain.py": '''\
def test_arithmetic():
    assert 1 + 1 == 2
''',
}

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shop/__init__.py": "",
    "shop/prices.py": PRICES,
    "shop/catalog.py": CATALOG,
    **TESTS,
}


def write(root: Path) -> Path:
    root.mkdir(parents=True)
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                  "commit", "-q", "-m", "the shop project"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root
