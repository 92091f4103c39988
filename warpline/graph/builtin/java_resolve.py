"""Java's edges of one file: one pass over its query captures in source order, with the
scopes open at each site (types, methods, lambdas, anonymous classes) and the locals
declared so far.

* ``calls``: a method invocation (receiver typed from ``this``/``super``, a local, a
  parameter, a field, a type name, a call's declared return type, ``new``, a cast, a
  literal), ``new T(…)`` (T's constructor; a class without one: the class), ``this(…)``
  and ``super(…)``, the implicit ``super()`` of a constructor that begins with neither,
  an enum constant's constructor, a method reference.
* ``references``: every type name that means a repository type (declarations, generics,
  casts, ``instanceof``, ``throws``, class literals, annotations, ``extends`` and
  ``implements``, type names used as receivers).
* The source is the innermost entity around the site (a member of an anonymous class or
  a lambda belongs to the definition around it).

A call whose receiver's type cannot be told, or whose name is nowhere in a repository
type's hierarchy that has no library supertype, is counted as unresolved; an ambiguous
overload gives candidate edges (confidence ``candidate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpline.graph.builtin.java_overloads import choose
from warpline.graph.builtin.java_scan import FileScan, MethodDecl, TypeDecl, bounds, text
from warpline.graph.builtin.java_types import Context, TypeTable, element_of, plain
from warpline.graph.builtin.python_resolve import EdgeSink

__all__ = ["FileEdges", "dispatch_edges"]

CANDIDATE = "candidate"
DISPATCH = "dispatch"
_LITERALS = {"string_literal": "X:String", "text_block": "X:String",
             "character_literal": "P:char", "true": "P:boolean", "false": "P:boolean",
             "null_literal": "N", "class_literal": "X:Class"}
_BOOLEAN_OPS = frozenset({"&&", "||", "==", "!=", "<", ">", "<=", ">=", "!"})
_NUMERIC = ("P:double", "P:float", "P:long", "P:int")
# What a few JDK methods return, by name, on a receiver outside the repository (their
# documented signatures); any other library call's type is unknown.
_LIBRARY_RETURNS: dict[str, str] = {
    **dict.fromkeys(("size", "length", "hashCode", "indexOf", "lastIndexOf", "ordinal",
                     "compareTo", "intValue", "getModifiers", "identityHashCode"), "P:int"),
    **dict.fromkeys(("equals", "isEmpty", "contains", "containsKey", "hasNext", "startsWith",
                     "endsWith", "booleanValue", "matches", "isAnnotationPresent",
                     "isInstance", "isAssignableFrom", "isInterface", "add", "remove",
                     "equalsIgnoreCase", "isAlive", "await"), "P:boolean"),
    **dict.fromkeys(("toString", "getName", "getMessage", "getSimpleName", "trim",
                     "substring", "toLowerCase", "toUpperCase", "format", "replace",
                     "getLocalizedMessage", "name", "getCanonicalName", "getProperty",
                     "readLine", "join", "repeat", "concat", "getMethodName",
                     "getClassName", "lineSeparator"), "X:String"),
    **dict.fromkeys(("getClass", "getDeclaringClass", "getType", "getReturnType",
                     "getSuperclass", "forName", "loadClass"), "X:Class"),
    **dict.fromkeys(("longValue", "currentTimeMillis", "nanoTime", "toMillis", "toNanos",
                     "getTime"), "P:long"),
    "doubleValue": "P:double", "floatValue": "P:float", "charAt": "P:char",
    **dict.fromkeys(("asList", "emptyList", "singletonList", "unmodifiableList", "subList",
                     "synchronizedList", "nCopies"), "X:List"),
    **dict.fromkeys(("emptySet", "singleton", "unmodifiableSet", "keySet"), "X:Set"),
    **dict.fromkeys(("getCause", "fillInStackTrace"), "X:Throwable"),
    "getStackTrace": "X:StackTraceElement[]", "toCharArray": "P:char[]",
    "getBytes": "P:byte[]", "split": "X:String[]", "getMethods": "X:Method[]",
    "getDeclaredMethods": "X:Method[]", "getDeclaredFields": "X:Field[]",
    "getFields": "X:Field[]", "getAnnotations": "X:Annotation[]",
    "getMethod": "X:Method", "getDeclaredMethod": "X:Method", "getField": "X:Field",
    "getDeclaredField": "X:Field", "currentThread": "X:Thread", "iterator": "X:Iterator",
}
# A container's element comes out of these (List.get, Iterator.next, Optional.get, Map.get …)
_ELEMENT = frozenset({"get", "next", "previous", "poll", "peek", "pop", "element", "getFirst",
                      "getLast", "orElse", "orElseThrow", "firstElement", "lastElement",
                      "nextElement", "pollFirst", "pollLast", "peekFirst", "peekLast",
                      "removeFirst", "removeLast", "call", "join"})
_ELEMENTS = {"iterator": "Iterator", "listIterator": "ListIterator", "values": "Collection",
             "stream": "Stream"}
_BY_CLASS_ARGUMENT = frozenset({"getAnnotation", "getDeclaredAnnotation", "cast"})
_VALUE_OF = frozenset({"Integer", "Long", "Short", "Byte", "Character", "Boolean", "Double",
                       "Float", "String"})


@dataclass(slots=True)
class _Frame:
    """A scope open at the sweep's position: until ``end``, its declaration (a type, a
    method, None for a lambda), the entity edges from inside it start at (None: the one
    around it) and its locals' types."""
    end: int
    decl: TypeDecl | MethodDecl | None  # None: a lambda
    entity: str | None
    locals: dict[str, str | None] = field(default_factory=dict)


class FileEdges:
    """The sweep over one file (``run``), writing into ``sink``."""

    def __init__(self, table: TypeTable, scan: FileScan, sink: EdgeSink) -> None:
        self.table, self.scan, self.sink = table, scan, sink
        self.frames: list[_Frame] = []
        self.memo: dict[int, str | None] = {}

    # -- scopes ----------------------------------------------------------------------
    def run(self) -> None:
        handlers = {"type": self._open, "method": self._open, "lambda": self._lambda,
                    "new": self._new, "constant": self._constant, "body": self._body,
                    "local": self._local,
                    "param": self._param, "catch": self._catch, "foreach": self._foreach,
                    "resource": self._resource, "call": self._call, "ctor": self._ctor,
                    "mref": self._mref, "typename": self._typename,
                    "annotation": self._annotation, "field": self._field,
                    "instanceof": self._instanceof}
        for node, name in self.scan.captures:
            while self.frames and node.start_byte >= self.frames[-1].end:
                self.frames.pop()
            handlers[name](node)

    def _source(self) -> str | None:
        return next((f.entity for f in reversed(self.frames) if f.entity), None)

    def _types(self) -> list[TypeDecl]:
        return [f.decl for f in reversed(self.frames) if isinstance(f.decl, TypeDecl)]

    def _ctx(self) -> Context:
        tvars: set[str] = set()
        decl = None
        for frame in reversed(self.frames):
            if isinstance(frame.decl, MethodDecl) and decl is None:
                tvars |= frame.decl.type_params
            if isinstance(frame.decl, TypeDecl):
                decl = frame.decl
                break
        return Context(self.scan, decl, frozenset(tvars))

    def _open(self, node: Any) -> None:
        decl = self.scan.decls.get(node.id)
        if decl is None:
            return
        self.frames.append(_Frame(node.end_byte, decl, decl.locator))
        if isinstance(decl, MethodDecl) and decl.name == "<init>":
            self._implicit_super(decl, node)

    def _lambda(self, node: Any) -> None:
        frame = _Frame(node.end_byte, None, None)
        params = node.child_by_field_name("parameters")
        if params is not None and params.type == "identifier":
            frame.locals[text(params)] = None
        elif params is not None and params.type == "inferred_parameters":
            for param in params.named_children:
                frame.locals[text(param)] = None
        self.frames.append(frame)  # typed parameters arrive as @param captures

    def _declare(self, name: Any, typ: str | None) -> None:
        if name is None:
            return
        frame = next((f for f in reversed(self.frames) if not isinstance(f.decl, TypeDecl)),
                     None)
        if frame is not None:
            frame.locals[text(name)] = typ

    # -- declarations ----------------------------------------------------------------
    def _local(self, node: Any) -> None:
        typ = node.child_by_field_name("type")
        for declarator in node.children_by_field_name("declarator"):
            resolved = self.table.of_node(typ, self._ctx(),
                                          declarator.child_by_field_name("dimensions"))
            if resolved is None:  # `var x = …`
                value = declarator.child_by_field_name("value")
                resolved = self.type_of(value) if value is not None else None
            self._declare(declarator.child_by_field_name("name"), resolved)

    def _param(self, node: Any) -> None:
        if node.type == "spread_parameter":
            typ = next((c for c in node.named_children
                        if c.type not in ("modifiers", "variable_declarator")), None)
            declarator = next((c for c in node.named_children
                               if c.type == "variable_declarator"), None)
            name = declarator.child_by_field_name("name") if declarator is not None else None
            resolved = plain(self.table.of_node(typ, self._ctx()))
            self._declare(name, resolved + "[]" if resolved else None)
            return
        self._declare(node.child_by_field_name("name"), self.table.of_node(
            node.child_by_field_name("type"), self._ctx(),
            node.child_by_field_name("dimensions")))

    def _catch(self, node: Any) -> None:
        types = next((c for c in node.named_children if c.type == "catch_type"), None)
        kinds = types.named_children if types is not None else []
        typ = self.table.of_node(kinds[0], self._ctx()) if len(kinds) == 1 else None
        self._declare(node.child_by_field_name("name"), typ)

    def _foreach(self, node: Any) -> None:
        declared = self.table.of_node(node.child_by_field_name("type"), self._ctx(),
                                      node.child_by_field_name("dimensions"))
        if declared is None:  # `for (var x : xs)`: what xs holds
            value = node.child_by_field_name("value")
            over = self.type_of(value) if value is not None else None
            declared = over[:-2] if over and over.endswith("[]") else element_of(over)
        self._declare(node.child_by_field_name("name"), declared)

    def _resource(self, node: Any) -> None:
        self._declare(node.child_by_field_name("name"),
                      self.table.of_node(node.child_by_field_name("type"), self._ctx()))

    def _instanceof(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self._declare(name, self.table.of_node(node.child_by_field_name("right"),
                                                   self._ctx()))

    # -- sites -----------------------------------------------------------------------
    def _edge(self, target: str | None, kind: str, confidence: str = "resolved") -> None:
        source = self._source()
        if source is None or target is None or source == target:
            return
        key = (source, target, kind)
        if key in self.sink.edges and self.sink.confidence.get(key, "resolved") == "resolved":
            return
        self.sink.edges.add(key)  # type: ignore[arg-type]
        if confidence != "resolved":
            self.sink.confidence[key] = confidence  # type: ignore[index]
        else:
            self.sink.confidence.pop(key, None)  # type: ignore[arg-type]

    def _calls(self, methods: list[MethodDecl], certain: bool) -> None:
        for method in methods:
            self._edge(method.locator, "calls", "resolved" if certain else CANDIDATE)

    def _typename(self, node: Any) -> None:
        parent = node.parent
        if parent is not None and parent.type == "type_parameter" \
                and parent.named_children[0] == node:
            return  # a type variable's own declaration
        if parent is not None and parent.type == "scoped_type_identifier":
            source = parent.text[:node.end_byte - parent.start_byte]
            parts = _name_parts(source.decode("utf-8", "replace"))
            resolved = self.table.qualified(parts, self._ctx()) if parts else None
        else:
            resolved = self.table.of_node(node, self._ctx())
        self._ref(resolved)

    def _ref(self, typ: str | None) -> None:
        if typ and typ.startswith("R:"):
            decl = self.table.types.get(typ[2:].rstrip("[]"))
            if decl is not None:
                self._edge(decl.locator, "references")

    def _annotation(self, node: Any) -> None:
        parts = _name_parts(text(node))
        ctx = self._ctx()
        for cut in range(1, len(parts) + 1):  # `@Outer.Inner`: both are named
            self._ref(self.table.qualified(parts[:cut], ctx))

    def _field(self, node: Any) -> None:
        self.type_of(node)

    def _call(self, node: Any) -> None:
        name = text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        args = self._args(node)
        if obj is None:
            self._unqualified(name, args)
            return
        if obj.type == "super":
            types = self._types()
            owner = types[0] if types else None
            self._member(self._super_of(owner), name, args, static=False)
            return
        self._member(self.type_of(obj), name, args, static=False)

    def _args(self, node: Any) -> list[str | None]:
        arguments = node.child_by_field_name("arguments")
        return [self.type_of(a) for a in arguments.named_children] \
            if arguments is not None else []

    def _unqualified(self, name: str, args: list[str | None]) -> None:
        for decl in self._types():
            methods = self.table.methods(decl, name)
            if methods:
                self._calls(*choose(self.table, methods, args))
                return
        owners = self._static_owners(name)
        found: list[MethodDecl] = []
        for owner in owners:
            imported = self.table.types.get(owner)
            if imported is not None:
                found.extend(m for m in self.table.methods(imported, name) if m.static)
        if found:
            self._calls(*choose(self.table, found, args))
        elif not owners and not any(self.table.opaque(d) for d in self._types()):
            self.sink.unresolved += 1

    def _bound(self, variable: str) -> str | None:
        """A type variable's bound where it is declared (``T extends Foo``: a Foo), from
        the innermost method or class declaring it; None without one."""
        for index in range(len(self.frames) - 1, -1, -1):
            decl = self.frames[index].decl
            if decl is None or variable not in decl.type_params:
                continue
            bound = bounds(decl.node).get(variable)
            if bound is None:
                return None
            owner = decl if isinstance(decl, TypeDecl) else decl.owner
            ctx = Context(self.scan, owner, owner.type_params | (
                decl.type_params if isinstance(decl, MethodDecl) else frozenset()))
            found = self.table.of_node(bound, ctx)
            return None if found is None or found.startswith("V:") else found
        return None

    def _static_owners(self, name: str) -> list[str]:
        """The types a static import brings ``name`` from: a single-static-import of the
        name shadows every on-demand one (also when it is a library's)."""
        single = self.scan.static_single.get(name)
        return list(single) if single else list(self.scan.static_demand)

    def _super_of(self, decl: TypeDecl | None) -> str | None:
        if decl is None:
            return None
        for sup in self.table.supers(decl):
            sub = self.table.types.get(sup[2:]) if sup.startswith("R:") else None
            if sub is None or sub.kind != "interface":
                return sup
        return "X:Object"

    def _member(self, receiver: str | None, name: str, args: list[str | None],
                static: bool) -> None:
        if receiver is not None and receiver.startswith("V:"):
            receiver = self._bound(receiver[2:])
        if receiver is None or receiver.startswith("V:"):
            self.sink.unresolved += 1
            return
        if receiver.startswith("S:"):
            receiver = "R:" + receiver[2:]
        if not receiver.startswith("R:") or receiver.endswith("[]"):
            return  # a library type, a primitive, an array: outside the repository
        decl = self.table.types.get(receiver[2:])
        if decl is None:
            return
        methods = self.table.methods(decl, name)
        if methods:
            self._calls(*choose(self.table, methods, args))
        elif not self.table.opaque(decl):
            self.sink.unresolved += 1

    def _constructors(self, decl: TypeDecl | None, args: list[str | None]) -> None:
        if decl is None:
            return
        if decl.ctors:
            self._calls(*choose(self.table, decl.ctors, args))
        elif not args:
            self._edge(decl.locator, "calls")  # the default constructor is its class's

    def _new(self, node: Any) -> None:
        args = self._args(node)
        typ = self.table.of_node(node.child_by_field_name("type"), self._ctx())
        decl = self.table.types.get(typ[2:]) if typ and typ.startswith("R:") else None
        if decl is None or decl.kind not in ("interface", "annotation"):
            self._constructors(decl, args)

    def _body(self, node: Any) -> None:
        """An anonymous class body opens its scope where it starts: the arguments of its
        `new` are read in the scope around it."""
        anon = self.scan.decls.get(node.id)
        if isinstance(anon, TypeDecl):
            self.frames.append(_Frame(node.end_byte, anon, None))

    def _constant(self, node: Any) -> None:
        types = self._types()
        enum = types[0] if types else None
        args = node.child_by_field_name("arguments")
        self._constructors(enum, [self.type_of(a) for a in args.named_children]
                           if args is not None else [])

    def _ctor(self, node: Any) -> None:
        types = self._types()
        owner = types[0] if types else None
        args = self._args(node)
        which = node.child_by_field_name("constructor")
        if which is not None and which.type == "this":
            self._constructors(owner, args)
            return
        sup = self._super_of(owner)
        self._constructors(self.table.types.get(sup[2:]) if sup and sup.startswith("R:")
                           else None, args)

    def _implicit_super(self, ctor: MethodDecl, node: Any) -> None:
        """A constructor not beginning with this(…)/super(…) calls super() first."""
        body = node.child_by_field_name("body")
        first = body.named_children[0] if body is not None and body.named_children else None
        if first is not None and first.type == "explicit_constructor_invocation":
            return
        owner = ctor.owner
        if owner.kind != "class" or owner.anonymous:
            return
        sup = self._super_of(owner)
        decl = self.table.types.get(sup[2:]) if sup and sup.startswith("R:") else None
        if decl is not None:
            self._constructors(decl, [])

    def _mref(self, node: Any) -> None:
        children = node.named_children
        if not children:
            return
        head = children[0]
        name = text(children[-1]) if len(children) > 1 else "new"
        if head.type == "super":
            types = self._types()
            receiver = self._super_of(types[0] if types else None)
        elif head.type in ("type_identifier", "scoped_type_identifier", "generic_type",
                           "array_type"):
            receiver = self.table.of_node(head, self._ctx())
        else:
            receiver = self.type_of(head)
        if receiver and receiver.startswith("S:"):
            receiver = "R:" + receiver[2:]
        decl = self.table.types.get(receiver[2:]) if receiver and \
            receiver.startswith("R:") and not receiver.endswith("[]") else None
        if decl is None:
            if receiver is None:
                self.sink.unresolved += 1
            return
        methods = decl.ctors if name == "new" or text(node).endswith("::new") \
            else self.table.methods(decl, name)
        if len(methods) == 1:
            self._calls(methods, True)
        elif methods:
            self._calls(methods, False)
        elif name == "new" or text(node).endswith("::new"):
            self._edge(decl.locator, "calls")

    # -- expressions -----------------------------------------------------------------
    def type_of(self, node: Any) -> str | None:
        key = node.id
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a cycle in bad code ends here
        found = self._type_of(node)
        self.memo[key] = found
        return found

    def _type_of(self, node: Any) -> str | None:
        kind = node.type
        literal = _LITERALS.get(kind)
        if literal is not None:
            return literal
        if kind.endswith("integer_literal"):
            return "P:long" if text(node)[-1:] in "lL" else "P:int"
        if kind.endswith("floating_point_literal"):
            return "P:float" if text(node)[-1:] in "fF" else "P:double"
        if kind == "identifier":
            return self._name(text(node))
        if kind == "this":
            types = self._types()
            return f"R:{types[0].fqn}" if types and not types[0].anonymous else \
                self._anon_type(types[0]) if types else None
        if kind == "parenthesized_expression":
            return self.type_of(node.named_children[0]) if node.named_children else None
        if kind == "cast_expression":
            return self.table.of_node(node.child_by_field_name("type"), self._ctx())
        if kind == "object_creation_expression":
            return self.table.of_node(node.child_by_field_name("type"), self._ctx())
        if kind == "array_creation_expression":
            typ = self.table.of_node(node.child_by_field_name("type"), self._ctx())
            dims = text(node).count("[")
            return typ + "[]" * dims if typ else None
        if kind == "field_access":
            return self._field_access(node)
        if kind == "method_invocation":
            return self._returns(node)
        if kind == "array_access":
            array = self.type_of(node.child_by_field_name("array"))
            return array[:-2] if array and array.endswith("[]") else None
        if kind == "ternary_expression":
            return self.type_of(node.child_by_field_name("consequence"))
        if kind == "assignment_expression":
            return self.type_of(node.child_by_field_name("left"))
        if kind in ("unary_expression", "update_expression"):
            operand = node.named_children[0] if node.named_children else None
            return "P:boolean" if text(node).startswith("!") else \
                self.type_of(operand) if operand is not None else None
        if kind == "instanceof_expression":
            return "P:boolean"
        if kind == "binary_expression":
            return self._binary(node)
        return None

    def _anon_type(self, anon: TypeDecl) -> str | None:
        sups = self.table.supers(anon)
        return sups[0] if sups else None

    def _binary(self, node: Any) -> str | None:
        operator = node.child_by_field_name("operator")
        op = text(operator) if operator is not None else ""
        if op in _BOOLEAN_OPS:
            return "P:boolean"
        left = self.type_of(node.child_by_field_name("left"))
        right = self.type_of(node.child_by_field_name("right"))
        if op == "+" and "X:String" in (left, right):
            return "X:String"
        if left in _NUMERIC and right in _NUMERIC:
            return next(t for t in _NUMERIC if t in (left, right))
        if left and right and left.startswith("P:") and right.startswith("P:") \
                and op not in ("+", "-", "*", "/", "%"):
            return left
        if left and right and left.startswith("P:") and right.startswith("P:"):
            return "P:int"
        return None

    def _name(self, name: str) -> str | None:
        for frame in reversed(self.frames):
            if name in frame.locals:
                return frame.locals[name]
            if isinstance(frame.decl, TypeDecl):
                found = self.table.field(frame.decl, name)
                if found is not None:
                    return None if found == "?" or found.startswith("V:") else found
        for owner in self.scan.static_single.get(name, ()):
            decl = self.table.types.get(owner)
            found = self.table.field(decl, name) if decl is not None else None
            if found is not None:
                return None if found == "?" or found.startswith("V:") else found
        typ = self.table.simple(name, self._ctx())
        if typ.startswith("R:"):
            self._ref(typ)
            return "S:" + typ[2:]
        if typ.startswith("X:") and name[:1].isupper():
            return "SX:" + name  # a library type named as a receiver
        return None

    def _field_access(self, node: Any) -> str | None:
        obj = node.child_by_field_name("object")
        member = text(node.child_by_field_name("field"))
        if obj is None:
            return None
        if member == "this":  # Outer.this
            typ = self.table.of_node(obj, self._ctx())
            self._ref(typ)
            return typ
        if member == "length" and obj.type != "identifier":
            base = self.type_of(obj)
            if base and base.endswith("[]"):
                return "P:int"
        if obj.type == "super":
            types = self._types()
            receiver = self._super_of(types[0] if types else None)
        else:
            receiver = self.type_of(obj)
        if receiver is None:
            if obj.type in ("identifier", "field_access"):
                return self._package_type(node)
            return None
        if receiver.endswith("[]"):
            return "P:int" if member == "length" else None
        if receiver == "SX:System" and member in ("out", "err"):
            return "X:PrintStream"
        if receiver.startswith(("S:", "R:")):
            decl = self.table.types.get(receiver[2:])
            if decl is None:
                return None
            found = self.table.field(decl, member)
            if found is not None:
                return None if found == "?" or found.startswith("V:") else found
            if receiver.startswith("S:"):
                nested = self.table.member_type(decl, member)
                if nested is not None:
                    self._ref(f"R:{nested}")
                    return f"S:{nested}"
        return None

    def _package_type(self, node: Any) -> str | None:
        """``org.demo.Foo`` in an expression: a package-qualified type name."""
        parts = "".join(text(node).split()).split(".")
        fqn = ".".join(parts)
        decl = self.table.types.get(fqn)
        if decl is None:
            return None
        self._ref(f"R:{fqn}")
        return f"S:{fqn}"

    def _returns(self, node: Any) -> str | None:
        name = text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        args = self._args(node)
        methods: list[MethodDecl] = []
        if obj is None:
            for decl in self._types():
                methods = self.table.methods(decl, name)
                if methods:
                    break
            if not methods:
                for owner in self._static_owners(name):
                    imported = self.table.types.get(owner)
                    if imported is not None:
                        methods.extend(self.table.methods(imported, name))
        else:
            if obj.type == "super":
                types = self._types()
                receiver = self._super_of(types[0] if types else None)
            else:
                receiver = self.type_of(obj)
            if receiver and receiver.startswith("V:"):
                receiver = self._bound(receiver[2:])
            if receiver and receiver.startswith(("R:", "S:")) and not receiver.endswith("[]"):
                target = self.table.types.get(receiver[2:])
                methods = self.table.methods(target, name) if target is not None else []
            elif receiver and receiver.startswith(("X:", "SX:", "P:")):
                literal = self._class_literal(node, 0)
                if name in _BY_CLASS_ARGUMENT and literal is not None:
                    return literal  # getAnnotation(Foo.class), cast(Foo.class): a Foo
                return _library_returns(receiver, name)
        chosen, _ = choose(self.table, methods, args)
        returns = {self._generic_return(m, node) or self.table.returns(m) for m in chosen}
        return returns.pop() if len(returns) == 1 else None

    def _class_literal(self, call: Any, index: int) -> str | None:
        """The type ``Foo`` of a ``Foo.class`` argument at ``index``, else None."""
        arguments = call.child_by_field_name("arguments")
        found = arguments.named_children if arguments is not None else []
        if index >= len(found) or found[index].type != "class_literal" \
                or not found[index].named_children:
            return None
        return self.table.of_node(found[index].named_children[0], self._ctx())

    def _generic_return(self, method: MethodDecl, call: Any) -> str | None:
        """``<T> T get(Class<T> type)`` called with ``Foo.class``: a Foo."""
        if method.returns is None or text(method.returns) not in method.type_params:
            return None
        variable = text(method.returns)
        for index, (typ, _) in enumerate(method.params):
            written = "".join(text(typ).split()) if typ is not None else ""
            if written in (f"Class<{variable}>", f"Class<?extends{variable}>"):
                return self._class_literal(call, index)
        return None


def _library_returns(receiver: str, name: str) -> str | None:
    element = element_of(receiver)
    if element is not None:
        if name in _ELEMENT:
            return element
        if name in _ELEMENTS:
            return f"X:{_ELEMENTS[name]}|{element}"
    receiver = plain(receiver) or receiver
    simple = receiver.partition(":")[2]
    if name == "valueOf" and receiver.startswith("SX:") and simple in _VALUE_OF:
        return f"X:{simple}"
    if name == "clone" and receiver.endswith("[]"):
        return receiver
    return _LIBRARY_RETURNS.get(name)


def _name_parts(written: str) -> list[str]:
    """``a.b.Outer<T>.Inner`` -> ``["a", "b", "Outer", "Inner"]``."""
    depth = 0
    kept = []
    for char in written:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif depth == 0 and not char.isspace():
            kept.append(char)
    return [p for p in "".join(kept).split(".") if p and p[0] != "@"]


def dispatch_edges(table: TypeTable, sink: EdgeSink) -> None:
    """A method overriding (or implementing) one of a supertype: the overridden one
    ``calls`` it (confidence ``dispatch``): a caller of the supertype's method reaches it.
    Parameters match by erased simple name; a supertype's type variable matches any."""
    for decl in table.types.values():
        if decl.locator is None:
            continue
        for name, methods in decl.methods.items():
            for method in methods:
                if method.locator is None or method.static or method.private:
                    continue
                for owner in list(table.hierarchy(decl))[1:]:
                    for other in owner.methods.get(name, ()):
                        if other.locator is None or other.static or other.private \
                                or len(other.erased) != len(method.erased):
                            continue
                        tvars = owner.type_params | other.type_params
                        if all(a == b or a in tvars for a, b in
                               zip(other.erased, method.erased, strict=True)):
                            key = (other.locator, method.locator, "calls")
                            if key not in sink.edges:
                                sink.edges.add(key)  # type: ignore[arg-type]
                                sink.confidence[key] = DISPATCH  # type: ignore[index]
