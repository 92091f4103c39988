// The TypeScript compiler's definitions of one file, named in the ts: dialect: shared by
// bench/ts_truth.js (per-commit attribution) and bench/ts_edges_truth.js (edges).
"use strict";
const ts = require("typescript");

const KIND = { ".ts": ts.ScriptKind.TS, ".mts": ts.ScriptKind.TS, ".cts": ts.ScriptKind.TS,
  ".tsx": ts.ScriptKind.TSX, ".js": ts.ScriptKind.JS, ".mjs": ts.ScriptKind.JS,
  ".cjs": ts.ScriptKind.JS, ".jsx": ts.ScriptKind.JSX };

// Every definition the compiler's syntax tree declares, each counted separately (issue
// 35): function, class, method, accessor, constructor and signature declarations, functions
// and classes bound to a name, a member, an object key or a class field, named function
// and class expressions, interfaces, types, enums, namespaces. Named in the ts: dialect
// (docs/languages.md, "TypeScript and JavaScript"), written here from that page, not from
// warpline's code: values that are not functions make their binding a naming scope, and a
// qualname met again in one file is the next of its name (name~2) unless it continues an
// overload group or pairs a getter with its setter.

const WRAPPERS = new Set([ts.SyntaxKind.ParenthesizedExpression, ts.SyntaxKind.AsExpression,
  ts.SyntaxKind.SatisfiesExpression, ts.SyntaxKind.NonNullExpression]);
const SCOPES = new Set([ts.SyntaxKind.ObjectLiteralExpression, ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.NewExpression, ts.SyntaxKind.ParenthesizedExpression,
  ts.SyntaxKind.ConditionalExpression, ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.AsExpression, ts.SyntaxKind.SatisfiesExpression,
  ts.SyntaxKind.NonNullExpression, ts.SyntaxKind.AwaitExpression]);

function unwrap(node) {
  while (node && WRAPPERS.has(node.kind)) node = node.expression;
  return node;
}

function isFunctionValue(node) {
  return node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

// The kind a value makes of its owner: "class", "function" or null (a scope or nothing).
// An assignment is no naming scope (tree-sitter's binary_expression holds no `=`).
function isScope(node) {
  if (!SCOPES.has(node.kind)) return false;
  return !(ts.isBinaryExpression(node) &&
    node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
    node.operatorToken.kind <= ts.SyntaxKind.LastAssignment);
}

function valueKind(value) {
  const inner = unwrap(value);
  if (!inner) return null;
  if (ts.isClassExpression(inner)) return "class";
  if (isFunctionValue(inner)) return "function";
  return null;
}

// `exports.f` -> f, `module.exports` -> default, `X.prototype.m` -> X.m; `this.x` and
// computed members are not names.
function memberName(text) {
  let left = text.replace(/\s+/g, "");
  if (left === "module.exports" || left === "exports") return "default";
  for (const head of ["module.exports.", "exports."]) {
    if (left.startsWith(head)) { left = left.slice(head.length); break; }
  }
  if (left === "this" || left.startsWith("this.") || left.includes("[") || left.includes("(")) {
    return null;
  }
  return left.split(".prototype.").join(".");
}

const SAFE = /[A-Za-z0-9_$#@\[\]-]/;

function keyName(name, sf, computed) {
  if (!name) return null;
  let raw;
  if (ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) raw = name.text;
  else if (computed && ts.isComputedPropertyName(name)) raw = name.getText(sf).replace(/\s+/g, "");
  else if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isNumericLiteral(name)) {
    raw = name.getText(sf);
  } else return null;
  if (!raw) return null;
  let out = "";
  for (const ch of raw) {
    out += SAFE.test(ch) ? ch : [...Buffer.from(ch, "utf8")].map(
      (b) => "%" + b.toString(16).toUpperCase().padStart(2, "0")).join("");
  }
  return out;
}

// Whether `node` (a function or class expression) is the value of a binding, member, key,
// field or default export (through parentheses and assertions).
function isOwnedValue(node) {
  let child = node;
  let parent = node.parent;
  while (parent && WRAPPERS.has(parent.kind)) { child = parent; parent = parent.parent; }
  if (!parent) return false;
  if (ts.isVariableDeclaration(parent)) return parent.initializer === child;
  if (ts.isBinaryExpression(parent)) {
    return parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && parent.right === child &&
      (ts.isPropertyAccessExpression(parent.left) || ts.isIdentifier(parent.left));
  }
  if (ts.isExportAssignment(parent)) return parent.expression === child;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.initializer === child;
  }
  return false;
}

function read(file, text, given) {
  const dot = file.lastIndexOf(".");
  const kind = KIND[file.slice(dot)] ?? ts.ScriptKind.TS;
  const sf = given ?? ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const defs = [];
  const nodes = [];  // [definition node, kind, qualname]
  const taken = new Map();

  // The first line: the comment block directly above (each comment ending on the line
  // right before the next, no blank line between). Decorators are part of the node.
  function leading(node) {
    let first = lineOf(node.getStart(sf, false));
    const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) || [];
    for (let i = ranges.length - 1; i >= 0; i--) {
      const end = lineOf(ranges[i].end);
      if (end < first - 1) break;
      first = Math.min(first, lineOf(ranges[i].pos));
    }
    return first;
  }

  // The statement a definition stands in: a binding's declaration list statement when it
  // declares that one name, an assignment's expression statement.
  function outer(node) {
    if (ts.isVariableDeclaration(node)) {
      const list = node.parent;
      if (list && list.declarations.length === 1 && ts.isVariableStatement(list.parent)) {
        return list.parent;
      }
      return node;
    }
    if (ts.isBinaryExpression(node) && ts.isExpressionStatement(node.parent)) return node.parent;
    return node;
  }

  const named = (node) => (node.name ? node.name.getText(sf) : null);
  const isExportDefault = (node) =>
    (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Default) !== 0;

  // {kind, name, flag, value} of a definition; {scope: name} for a naming scope (name ""
  // : its members are named without a segment); null when neither.
  function definition(node) {
    if (ts.isFunctionDeclaration(node)) {
      const name = named(node) ?? (isExportDefault(node) ? "default" : null);
      return name === null ? null : { kind: "function", name, flag: node.body ? "" : "sig" };
    }
    if (ts.isClassDeclaration(node)) return { kind: "class", name: named(node) ?? "default" };
    if (ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) {
      const name = keyName(node.name, sf, true);
      if (name === null) return null;
      return { kind: "method", name, flag: node.body ? "" : "sig" };
    }
    if (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      const name = keyName(node.name, sf, true);
      if (name === null) return null;
      return { kind: "method", name, flag: ts.isGetAccessorDeclaration(node) ? "get" : "set" };
    }
    if (ts.isConstructorDeclaration(node)) {
      return { kind: "method", name: "constructor", flag: node.body ? "" : "sig" };
    }
    if (ts.isInterfaceDeclaration(node)) return { kind: "interface", name: named(node) };
    if (ts.isTypeAliasDeclaration(node)) return { kind: "type", name: named(node) };
    if (ts.isEnumDeclaration(node)) return { kind: "enum", name: named(node) };
    // `declare global { }` augments the global scope: no namespace of its own.
    if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name) &&
        (node.flags & ts.NodeFlags.GlobalAugmentation) === 0) {
      return { kind: "namespace", name: named(node) };
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const k = valueKind(node.initializer);
      if (k) return { kind: k, name: node.name.text, value: unwrap(node.initializer) };
      return isScope(node.initializer) ? { scope: node.name.text } : null;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const k = valueKind(node.right);
      if (ts.isIdentifier(node.left)) {
        return k ? { kind: k, name: node.left.text, value: unwrap(node.right) } : null;
      }
      if (!ts.isPropertyAccessExpression(node.left)) return null;
      const name = memberName(node.left.getText(sf));
      if (name === null) return null;
      if (k) return { kind: k, name, value: unwrap(node.right) };
      if (!isScope(node.right)) return null;
      if (name.endsWith(".prototype")) return { scope: name.slice(0, -".prototype".length) };
      if (name === "default" && ts.isObjectLiteralExpression(unwrap(node.right))) {
        return { scope: "" };
      }
      return { scope: name };
    }
    if (ts.isExportAssignment(node) && !node.isExportEquals) {
      const k = valueKind(node.expression);
      if (k) return { kind: k, name: "default", value: unwrap(node.expression) };
      return isScope(node.expression) ? { scope: "default" } : null;
    }
    if (ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) {
      const name = keyName(node.name, sf);
      if (name === null || !node.initializer) return null;
      const k = valueKind(node.initializer);
      if (k) return { kind: k === "class" ? "class" : "method", name, value: unwrap(node.initializer) };
      return isScope(node.initializer) ? { scope: name } : null;
    }
    if ((ts.isFunctionExpression(node) || ts.isClassExpression(node)) && node.name &&
        !isOwnedValue(node)) {
      return { kind: ts.isClassExpression(node) ? "class" : "function", name: node.name.text };
    }
    return null;
  }

  function give(kind, base) {
    const k = kind + "\0" + base;
    const count = (taken.get(k) ?? 0) + 1;
    taken.set(k, count);
    return count === 1 ? base : `${base}~${count}`;
  }

  // ctx: the definitions named in one list (the previous one, accessors waiting for their
  // pair), for the overload-group and get/set rules.
  function visit(node, prefix, ctx) {
    const found = definition(node);
    if (found && found.scope !== undefined) {
      ctx.last = null;
      const inner = found.scope ? prefix + found.scope + "." : prefix;
      ts.forEachChild(node, (child) => visit(child, inner, { last: null, accessors: new Map() }));
      return;
    }
    if (!found || found.name === null || found.name === undefined) {
      ts.forEachChild(node, (child) => visit(child, prefix, ctx));
      return;
    }
    const base = prefix + found.name;
    const key = found.kind + "\0" + base;
    const flag = found.flag ?? "";
    let qualname;
    const pair = ctx.accessors.get(key);
    if (ctx.last && ctx.last.key === key && ctx.last.flag === "sig") {
      qualname = ctx.last.qualname;
    } else if ((flag === "get" || flag === "set") && pair && pair.flag !== flag && pair.flag) {
      qualname = pair.qualname;
      ctx.accessors.set(key, { qualname, flag: "" });
    } else {
      qualname = give(found.kind, base);
      if (flag === "get" || flag === "set") ctx.accessors.set(key, { qualname, flag });
    }
    ctx.last = { key, qualname, flag };
    const o = outer(node);
    defs.push([found.kind, qualname, leading(o), lineOf(o.getEnd())]);
    nodes.push([node, found.kind, qualname]);
    const inner = { last: null, accessors: new Map() };
    // A bound value is this definition: its children, not the value again.
    const from = found.value ?? node;
    ts.forEachChild(from, (child) => visit(child, qualname + ".", inner));
  }
  visit(sf, "", { last: null, accessors: new Map() });
  return { defs, nodes, error: sf.parseDiagnostics.length > 0 };
}


module.exports = { read, KIND };
