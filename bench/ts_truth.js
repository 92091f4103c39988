// Definitions of TypeScript and JavaScript files by the TypeScript compiler's own parser
// (npm `typescript`), named in warpline's `ts:` dialect (docs/languages.md), for
// bench/bench_lang_truth.py. Reads a JSON list of [id, file] from stdin; prints one JSON
// object per line: {"id", "error": true} or {"id", "defs": [[kind, qualname, first, last]]}
// with 1-based lines. Run: node bench/ts_truth.js (NODE_PATH: where typescript is).
"use strict";
const fs = require("fs");
const ts = require("typescript");

const KIND = { ".ts": ts.ScriptKind.TS, ".mts": ts.ScriptKind.TS, ".cts": ts.ScriptKind.TS,
  ".tsx": ts.ScriptKind.TSX, ".js": ts.ScriptKind.JS, ".mjs": ts.ScriptKind.JS,
  ".cjs": ts.ScriptKind.JS, ".jsx": ts.ScriptKind.JSX };

function isFunctionValue(node) {
  return node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node) ||
    ts.isClassExpression(node));
}

// `exports.f` -> f, `module.exports` -> default, `X.prototype.m` -> X.m; `this.x` and
// computed members are not names.
function memberName(text) {
  let left = text.replace(/\s+/g, "");
  if (left === "module.exports" || left === "exports") return "default";
  for (const head of ["module.exports.", "exports."]) {
    if (left.startsWith(head)) { left = left.slice(head.length); break; }
  }
  if (left.startsWith("this.") || left.includes("[") || left.includes("(")) return null;
  return left.split(".prototype.").join(".");
}

function read(file, text) {
  const dot = file.lastIndexOf(".");
  const kind = KIND[file.slice(dot)] ?? ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const lines = text.split(/\r?\n/);
  const defs = [];

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
  function outer(node, role) {
    if (role === "binding") {
      const list = node.parent;
      if (list && list.declarations.length === 1 && ts.isVariableStatement(list.parent)) {
        return list.parent;
      }
      return node;
    }
    if (role === "assignment" && ts.isExpressionStatement(node.parent)) return node.parent;
    return node;
  }

  function named(node) {
    const name = node.name;
    return name ? name.getText(sf) : null;
  }

  // [kind, name, role] of a definition node; null when not one; name null: anonymous
  // (its children rise).
  function definition(node) {
    if (ts.isFunctionDeclaration(node)) {
      const isDefault = (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Default) !== 0;
      return ["function", named(node) ?? (isDefault ? "default" : null), "function"];
    }
    if (ts.isClassDeclaration(node)) return ["class", named(node) ?? "default", "class"];
    if (ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node) || ts.isMethodSignature(node)) {
      return ["method", named(node), "method"];
    }
    if (ts.isConstructorDeclaration(node)) return ["method", "constructor", "method"];
    if (ts.isInterfaceDeclaration(node)) return ["interface", named(node), "interface"];
    if (ts.isTypeAliasDeclaration(node)) return ["type", named(node), "type"];
    if (ts.isEnumDeclaration(node)) return ["enum", named(node), "enum"];
    // `declare global { }` augments the global scope: no namespace of its own.
    if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name) &&
        (node.flags & ts.NodeFlags.GlobalAugmentation) === 0) {
      return ["namespace", named(node), "namespace"];
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) &&
        isFunctionValue(node.initializer)) {
      const k = ts.isClassExpression(node.initializer) ? "class" : "function";
      return [k, node.name.text, "binding"];
    }
    if (ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) && isFunctionValue(node.right)) {
      const k = ts.isClassExpression(node.right) ? "class" : "function";
      return [k, memberName(node.left.getText(sf)), "assignment"];
    }
    if (ts.isExportAssignment(node) && isFunctionValue(node.expression)) {
      const k = ts.isClassExpression(node.expression) ? "class" : "function";
      return [k, "default", "default"];
    }
    return null;
  }

  function visit(node, prefix) {
    const found = definition(node);
    let inner = prefix;
    if (found && found[1] !== null) {
      const [k, name, role] = found;
      // A class expression bound to a name: the binding is the definition, not the class.
      const qualname = prefix + name;
      const o = outer(node, role);
      defs.push([k, qualname, leading(o), lineOf(o.getEnd())]);
      inner = qualname + ".";
      if (role === "binding" || role === "assignment" || role === "default") {
        // the value itself is this definition: do not read it again as a class expression
        const value = node.initializer ?? node.right ?? node.expression;
        ts.forEachChild(value, (child) => visit(child, inner));
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  }
  visit(sf, "");
  return { defs, error: sf.parseDiagnostics.length > 0 };
}

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const out = [];
for (const [id, file] of input) {
  try {
    const result = read(file, fs.readFileSync(file, "utf8"));
    out.push(JSON.stringify({ id, defs: result.defs, syntax_error: result.error }));
  } catch (e) {
    out.push(JSON.stringify({ id, error: String(e) }));
  }
}
process.stdout.write(out.join("\n") + "\n");
