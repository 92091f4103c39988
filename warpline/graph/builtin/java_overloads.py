"""Which overload a Java call means: by arity, then by the arguments' static types where
they are known (JLS 15.12.2's three phases: without boxing, with boxing, with varargs;
then the most specific). An answer is certain only when one method remains with every
argument's type known (or one method of that arity at all); otherwise every method still
possible is a candidate and says so — never a wrong certain edge.
"""

from __future__ import annotations

from warpline.graph.builtin.java_scan import MethodDecl
from warpline.graph.builtin.java_types import TypeTable

__all__ = ["choose"]

_WIDER: dict[str, frozenset[str]] = {
    "byte": frozenset({"byte", "short", "int", "long", "float", "double"}),
    "short": frozenset({"short", "int", "long", "float", "double"}),
    "char": frozenset({"char", "int", "long", "float", "double"}),
    "int": frozenset({"int", "long", "float", "double"}),
    "long": frozenset({"long", "float", "double"}),
    "float": frozenset({"float", "double"}),
    "double": frozenset({"double"}),
    "boolean": frozenset({"boolean"}),
}
_BOX = {"int": "Integer", "long": "Long", "short": "Short", "byte": "Byte", "char": "Character",
        "float": "Float", "double": "Double", "boolean": "Boolean"}
_UNBOX = {v: k for k, v in _BOX.items()}
_BOXED_SUPERS = frozenset({"Object", "Number", "Comparable", "Serializable"})


def _assignable(table: TypeTable, arg: str | None, param: str | None,
                boxing: bool) -> bool | None:
    """Whether an argument of type ``arg`` can be passed as ``param``: True, False, or
    None when it cannot be told."""
    if arg is None or param is None or arg == "?" or param == "?":
        return None
    arg, param = arg.partition("|")[0], param.partition("|")[0]
    if arg == param:
        return True
    if param.startswith("V:"):
        return not arg.startswith("P:") or boxing
    a_prim, p_prim = arg.startswith("P:"), param.startswith("P:")
    if a_prim and p_prim:
        return param[2:] in _WIDER.get(arg[2:], frozenset())
    if a_prim:  # a primitive to a reference: boxing
        if not boxing or arg.endswith("[]"):
            return False
        boxed = _BOX.get(arg[2:], "")
        return param == f"X:{boxed}" or (param.startswith("X:") and param[2:] in _BOXED_SUPERS)
    if p_prim:  # a reference to a primitive: unboxing
        if arg == "N" or not boxing or not arg.startswith("X:"):
            return False
        unboxed = _UNBOX.get(arg[2:])
        return unboxed is not None and param[2:] in _WIDER.get(unboxed, frozenset())
    if arg == "N" or param == "X:Object":
        return True
    if arg.startswith("V:"):
        return None
    if arg.endswith("[]") or param.endswith("[]"):
        if not param.endswith("[]"):
            return param in ("X:Cloneable", "X:Serializable")
        if not arg.endswith("[]"):
            return False
        inner_a, inner_p = arg[:-2], param[:-2]
        if inner_a.startswith("P:") or inner_p.startswith("P:"):
            return inner_a == inner_p
        return _assignable(table, inner_a, inner_p, False)
    if arg.startswith("R:"):
        return table.is_subclass(arg, param)
    if param.startswith("R:"):
        return False  # a library type is never a subtype of the repository's
    from warpline.graph.builtin.java_types import _KNOWN_SUPERS
    known = _KNOWN_SUPERS.get(arg[2:])
    if known is not None:
        return param[2:] in known
    return None


def _applicable(table: TypeTable, args: list[str | None], params: list[str | None],
                varargs: bool, phase: int) -> bool | None:
    if phase < 3 or not varargs:
        if len(args) != len(params):
            return False
        shaped = params
    else:
        if len(args) < len(params) - 1:
            return False
        element = params[-1][:-2] if params[-1] and params[-1].endswith("[]") else None
        shaped = [*params[:-1], *([element] * (len(args) - len(params) + 1))]
    verdict: bool | None = True
    for arg, param in zip(args, shaped, strict=True):
        one = _assignable(table, arg, param, phase > 1)
        if one is False:
            return False
        if one is None:
            verdict = None
    return verdict


def _more_specific(table: TypeTable, a: list[str | None], b: list[str | None]) -> bool:
    return len(a) == len(b) and all(
        _assignable(table, x, y, False) is True for x, y in zip(a, b, strict=True))


def choose(table: TypeTable, methods: list[MethodDecl],
           args: list[str | None]) -> tuple[list[MethodDecl], bool]:
    """(the methods the call may mean, whether that is certain)."""
    arity = [m for m in methods if len(m.params) == len(args)
             or (m.varargs and len(args) >= len(m.params) - 1)]
    if len(arity) <= 1:
        return arity, bool(arity)
    params = {id(m): table.params(m) for m in arity}
    for phase in (1, 2, 3):
        verdicts = [(m, _applicable(table, args, params[id(m)], m.varargs, phase))
                    for m in arity]
        possible = [(m, v) for m, v in verdicts if v is not False]
        if not possible:
            continue
        if any(v is None for _, v in possible):
            return [m for m, _ in possible], False
        best = [m for m, _ in possible
                if all(o is m or _more_specific(table, params[id(m)], params[id(o)])
                       for o, _ in possible)]
        if len(best) == 1:
            return best, True
        return [m for m, _ in possible], False
    return arity, False
