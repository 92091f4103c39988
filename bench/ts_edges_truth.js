// Call and reference edges between definitions by the TypeScript compiler's type checker
// (npm `typescript`), for bench/bench_ts_edges.py: every identifier inside a definition is
// resolved by `checker.getSymbolAtLocation` (aliases followed to what they import), and
// the declaration it resolves to, when it is a definition of the repository, is the edge's
// target. Definitions and their locators: bench/ts_names.js (the ts: dialect of
// docs/languages.md, modules by the same-stem rule). The program is the repository's own
// tsconfig.json where there is one (its module resolution, baseUrl and paths), with
// allowJs; files under node_modules are not read (no dependency is installed).
// Input (stdin): {"root": dir, "files": [relative paths]}. Output: one JSON line per
// edge [source locator, target locator, "calls"|"references"].
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { read } = require("./ts_names.js");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const root = path.resolve(input.root);
const files = input.files;
const fileSet = new Set(files);
const RANKED = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

// The module of a file: its path without extension, or the whole path beside a same-stem
// file of a higher rank (docs/languages.md).
function moduleOf(rel) {
  const dot = rel.lastIndexOf(".");
  const stem = rel.slice(0, dot);
  const suffix = rel.slice(dot);
  const rank = RANKED.indexOf(suffix);
  for (const higher of RANKED.slice(0, rank < 0 ? RANKED.length : rank)) {
    if (fileSet.has(stem + higher)) return rel;
  }
  return stem;
}

let options = { allowJs: true, checkJs: process.env.TRUTH_CHECKJS === "1", noEmit: true, skipLibCheck: true,
  jsx: ts.JsxEmit.Preserve, target: ts.ScriptTarget.Latest,
  module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
const configPath = path.join(root, "tsconfig.json");
if (fs.existsSync(configPath)) {
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (!config.error) {
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    options = { ...parsed.options, allowJs: true, checkJs: false, noEmit: true,
      skipLibCheck: true };
  }
}
const program = ts.createProgram(files.map((f) => path.join(root, f)), options);
const checker = program.getTypeChecker();

const nodeLocator = new Map();  // definition node -> locator
const perFile = [];
for (const rel of files) {
  const sf = program.getSourceFile(path.join(root, rel));
  if (!sf) continue;
  const module = moduleOf(rel);
  const { nodes } = read(rel, sf.text, sf);
  const defs = [];
  for (const [node, kind, qualname] of nodes) {
    const locator = `ts:${kind}:${module}.${qualname}`;
    nodeLocator.set(node, locator);
    defs.push([node.getStart(sf), node.getEnd(), locator]);
  }
  perFile.push({ rel, sf, module, defs });
}

const WRAPPERS = new Set([ts.SyntaxKind.ParenthesizedExpression, ts.SyntaxKind.AsExpression,
  ts.SyntaxKind.SatisfiesExpression, ts.SyntaxKind.NonNullExpression]);

// The definition a declaration is: itself, the assignment a JS `exports.f =` declaration
// stands in, or the binding a function or class value is the value of.
function locatorOf(decl) {
  let node = decl;
  for (let i = 0; i < 6 && node; i++) {
    const found = nodeLocator.get(node);
    if (found) return found;
    const p = node.parent;
    if (!p) return null;
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (!(ts.isPropertyAccessExpression(p) && p.name === node)) return null;
    } else if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      if (!(ts.isBinaryExpression(p) && p.left === node)) return null;
    } else if (!(ts.isFunctionExpression(node) || ts.isArrowFunction(node) ||
                 ts.isClassExpression(node) || WRAPPERS.has(node.kind))) {
      return null;
    }
    node = p;
  }
  return null;
}

function isCallee(id) {
  let node = id;
  if (node.parent && ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) {
    node = node.parent;
  }
  const p = node.parent;
  return !!p && (ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === node;
}

function isDeclarationName(id) {
  const p = id.parent;
  return !!p && p.name === id && (ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) ||
    ts.isMethodDeclaration(p) || ts.isVariableDeclaration(p) || ts.isParameter(p) ||
    ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isInterfaceDeclaration(p) ||
    ts.isTypeAliasDeclaration(p) || ts.isEnumDeclaration(p) || ts.isModuleDeclaration(p) ||
    ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) ||
    ts.isMethodSignature(p) || ts.isPropertySignature(p) || ts.isFunctionExpression(p) ||
    ts.isClassExpression(p) || ts.isImportSpecifier(p) || ts.isExportSpecifier(p) ||
    ts.isNamespaceImport(p) || ts.isImportClause(p) || ts.isBindingElement(p) ||
    ts.isTypeParameterDeclaration(p) || ts.isEnumMember(p));
}

const out = new Set();
for (const { sf, module, defs } of perFile) {
  const moduleLocator = `ts:module:${module}`;
  function sourceAt(pos) {
    let best = null;
    for (const [start, end, locator] of defs) {
      if (start <= pos && pos < end && (!best || end - start < best[1] - best[0])) {
        best = [start, end, locator];
      }
    }
    return best ? best[2] : moduleLocator;
  }
  function visit(node) {
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && !isDeclarationName(node)) {
      let symbol;
      try {
        // `{ a }` names the variable a: the shorthand's value symbol, not the property's
        symbol = node.parent && ts.isShorthandPropertyAssignment(node.parent)
          ? checker.getShorthandAssignmentValueSymbol(node.parent)
          : checker.getSymbolAtLocation(node);
      } catch (e) { symbol = undefined; }
      if (symbol && (symbol.flags & ts.SymbolFlags.Alias)) {
        try { symbol = checker.getAliasedSymbol(symbol); } catch (e) { /* keep */ }
      }
      if (symbol && symbol.declarations) {
        const source = sourceAt(node.getStart(sf));
        const kind = isCallee(node) ? "calls" : "references";
        for (const decl of symbol.declarations) {
          const declFile = decl.getSourceFile();
          if (!declFile || declFile.fileName.includes("/node_modules/")) continue;
          const target = locatorOf(decl);
          if (target && target !== source) out.add(JSON.stringify([source, target, kind]));
        }
      }
    }
    ts.forEachChild(node, visit);
  }
  visit(sf);
}
process.stdout.write([...out].join("\n") + "\n");
