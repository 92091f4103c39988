// warpline's per-test coverage for mocha (loaded with `mocha --require`): V8's precise
// coverage through the inspector, taken (and reset) around each test, appended as one
// JSON line per interval to $WARPLINE_JS_COVERAGE. Only scripts under $WARPLINE_JS_ROOT
// outside node_modules are kept; a function that did not run keeps only its own range.
// Without $WARPLINE_JS_ROOT it records each test's outcome alone (a run watched).
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');

const out = process.env.WARPLINE_JS_COVERAGE;
const measured = process.env.WARPLINE_JS_ROOT;
const prefix = measured ? 'file://' + measured.replace(/\/?$/, '/') : '';
const session = measured ? new inspector.Session() : null;
if (session) session.connect();

function post(method, params) {
  let failure = null;
  let answer = null;
  session.post(method, params || {}, (error, result) => { failure = error; answer = result; });
  if (failure) throw failure;
  return answer;
}

if (session) {
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', {callCount: true, detailed: false});
}

function take() {
  const scripts = [];
  if (!session) return scripts;
  for (const script of post('Profiler.takePreciseCoverage').result) {
    if (!script.url.startsWith(prefix) || script.url.includes('/node_modules/')) continue;
    if (!script.functions.some((f) => f.ranges[0].count > 0)) continue;
    const functions = script.functions.map((f) => f.ranges[0].count > 0 ? f :
      {functionName: f.functionName, ranges: [f.ranges[0]]});
    scripts.push({url: script.url, functions});
  }
  return scripts;
}

function write(record) {
  if (out) fs.appendFileSync(out, JSON.stringify(record) + '\n');
}

exports.mochaHooks = {
  beforeEach() {
    write({file: this.currentTest.file || null, titles: null, state: null, result: take()});
  },
  afterEach() {
    const test = this.currentTest;
    write({file: test.file || null, titles: test.titlePath(), state: test.state || 'pending',
           result: take()});
  },
};

process.on('exit', () => write({file: null, titles: null, state: null, result: take()}));
