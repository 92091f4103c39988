"""Java's built-in edges (issue 37 item 1): imports, same-package names, nested classes,
overloads by arity and static argument types (candidates marked when it cannot tell),
this/super calls, receivers typed from fields and locals, constructors, type references,
extends/implements and dispatch to overrides."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.gitfixture import FixtureRepo
from warpline.graph.builtin import capture_builtin
from warpline.graph.model import EdgeCapture

SHAPES = """package geo;

import java.util.List;

public abstract class Shape implements Measured {
    protected final String name;

    protected Shape(String name) {
        this.name = name;
    }

    public abstract double area();

    public String describe() {
        return name + area();
    }

    public static class Box {
        public static Box of(List<Shape> shapes) { return new Box(); }
    }
}
"""
MEASURED = """package geo;

public interface Measured {
    double area();
}
"""
CIRCLE = """package geo;

public class Circle extends Shape {
    private final double r;

    public Circle(double r) {
        super("circle");
        this.r = r;
    }

    public Circle() {
        this(1.0);
    }

    @Override
    public double area() {
        return Math.PI * scale(r, r);
    }

    static double scale(double a, double b) { return a * b; }
    static int scale(int a, int b) { return a * b; }
    static String scale(String a, int b) { return a; }
}
"""
USER = """package app;

import geo.Circle;
import geo.Shape;
import static geo.Shape.Box.of;

public class User {
    private Circle circle = new Circle(2.0);

    public double total(Shape shape, java.util.List<Object> list) {
        Circle local = new Circle();
        double x = local.area() + circle.area() + shape.area();
        of(null);
        return x + Circle.scale(1, 2) + Circle.scale(list.get(0), 2);
    }
}
"""
SAME = """package app;

class Helper {
    User user() { return new User(); }
}
"""


def _capture(tmp_path: Path) -> EdgeCapture:
    fixture = FixtureRepo(tmp_path / "geo")
    fixture.commit({"src/main/java/geo/Shape.java": SHAPES,
                    "src/main/java/geo/Measured.java": MEASURED,
                    "src/main/java/geo/Circle.java": CIRCLE,
                    "src/main/java/app/User.java": USER,
                    "src/main/java/app/Helper.java": SAME}, "geo")
    repo = pygit2.Repository(str(fixture.path))
    return capture_builtin(repo, repo.head.peel(pygit2.Commit))


def _edges(capture: EdgeCapture) -> dict[tuple[str, str, str], str | None]:
    return {(e.source_locator, e.target_locator, e.kind): e.confidence for e in capture.edges}


def test_calls_references_overloads_and_dispatch(tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    edges = _edges(capture)
    total = "java:method:app.User.total(Shape,List)"
    circle = "java:class:geo.Circle"
    expected_resolved = [
        (total, "java:constructor:geo.Circle.<init>()", "calls"),  # new, by arity
        (total, "java:method:geo.Circle.area()", "calls"),  # a local's and a field's type
        (total, "java:method:geo.Shape.area()", "calls"),  # a parameter's type
        (total, "java:method:geo.Shape.Box.of(List)", "calls"),  # static import, nested
        (total, "java:method:geo.Circle.scale(int,int)", "calls"),  # argument types
        (total, circle, "references"),  # a type named as a receiver
        ("java:class:app.User", "java:constructor:geo.Circle.<init>(double)", "calls"),
        ("java:constructor:geo.Circle.<init>()", "java:constructor:geo.Circle.<init>(double)",
         "calls"),  # this(...)
        ("java:constructor:geo.Circle.<init>(double)",
         "java:constructor:geo.Shape.<init>(String)", "calls"),  # super(...)
        (circle, "java:class:geo.Shape", "references"),  # extends
        ("java:class:geo.Shape", "java:interface:geo.Measured", "references"),  # implements
        ("java:method:app.Helper.user()", "java:class:app.User", "references"),  # same package
        ("java:method:geo.Circle.area()", "java:method:geo.Circle.scale(double,double)",
         "calls"),
    ]
    for key in expected_resolved:
        assert edges.get(key) == "resolved", key
    # an argument of unknown type (a library's generic call): every arity-2 overload it
    # may mean, marked as such
    assert edges[(total, "java:method:geo.Circle.scale(double,double)", "calls")] == \
        "candidate"
    assert (total, "java:method:geo.Circle.scale(String,int)", "calls") in edges
    assert edges[(total, "java:method:geo.Circle.scale(String,int)", "calls")] == "candidate"
    # dispatch: a caller of Shape.area() or Measured.area() reaches Circle.area()
    assert edges[("java:method:geo.Shape.area()", "java:method:geo.Circle.area()",
                  "calls")] == "dispatch"
    assert edges[("java:method:geo.Measured.area()", "java:method:geo.Shape.area()",
                  "calls")] == "dispatch"
    # never a wrong certain edge: nothing certain to an overload the types rule out
    assert (total, "java:method:geo.Circle.scale(String,int)", "calls") not in {
        k for k, v in edges.items() if v == "resolved"}


def test_entities_are_the_walkers(tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    locators = {e.locator for e in capture.entities}
    assert {"java:module:geo", "java:module:app", "core:file:src/main/java/geo/Circle.java",
            "java:class:geo.Shape.Box", "java:method:geo.Shape.Box.of(List)"} <= locators
    assert not capture.failed_entities


def test_overloads_named_through_their_imports_keep_their_edges(tmp_path: Path) -> None:
    # junit4's TestWatcher.skipped: two overloads whose parameter types share a simple name
    # are entities named with the differing type qualified; the graph found neither.
    watcher = ("package p;\nimport org.junit.AssumptionViolatedException;\n"
               "class W {\n"
               "  void skipped(AssumptionViolatedException e) { note(); }\n"
               "  void skipped(org.junit.internal.AssumptionViolatedException e) { note(); }\n"
               "  void note() {}\n}\n")
    fixture = FixtureRepo(tmp_path / "w")
    fixture.commit({"src/main/java/p/W.java": watcher}, "w")
    repo = pygit2.Repository(str(fixture.path))
    edges = _edges(capture_builtin(repo, repo.head.peel(pygit2.Commit)))
    for qualified in ("org.junit.AssumptionViolatedException",
                      "org.junit.internal.AssumptionViolatedException"):
        assert (f"java:method:p.W.skipped({qualified})", "java:method:p.W.note()",
                "calls") in edges
