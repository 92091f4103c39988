// Definitions of TypeScript and JavaScript files by the TypeScript compiler's own parser
// (npm `typescript`), named in the `ts:` dialect docs/languages.md writes down, for
// bench/bench_lang_truth.py. Reads a JSON list of [id, file] from stdin; prints one JSON
// object per line: {"id", "error": true} or {"id", "defs": [[kind, qualname, first, last]]}
// with 1-based lines. Run: node bench/ts_truth.js (NODE_PATH: where typescript is).
"use strict";
const fs = require("fs");
const { read } = require("./ts_names.js");

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
