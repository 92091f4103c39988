"""Held-out Rust, Go and Java histories: ``_history_truth_lang.py --heldout`` builds them.

Chosen on 2026-12-04, after the lineage rules of the 30 in ``_history_truth_targets.py``
were written, from git alone (``git log -S/-G``, ``git log --follow --name-status -M``,
``git log -L``, ``git show`` of each boundary) and committed before warpline was run on
any of them. Segments as in ``TARGETS``. A boundary is where the diff shows the old
declaration gone and the new one in its place in the same commit (a file, class or crate
move, a rename or signature change whose callers switched), read by hand; its own-text
similarity (difflib over the code lines, the name blanked, as ``_history_truth_build.py``)
is in the note, and a boundary below that builder's 0.6 is kept when the diff reads as one
definition (as the 30's ``has_any_ignore_rules``, 0.36, is).
"""

from __future__ import annotations

from typing import Any

from _history_truth_targets import _DOC, _go, _java, _rs

ABOUT = ("Held-out function histories in Rust (ripgrep), Go (cobra) and Java (junit4): 5 "
         "per corpus, chosen after the lineage rules of lineage_truth_lang.json were "
         "written, from git alone, and committed before warpline was run on them; built by "
         "bench/_history_truth_lang.py --heldout, scored by bench/bench_history_truth.py "
         "--truth bench/lineage_heldout_lang.json.")
SELECTION = [
    "Favoured: a Go function renamed and then made a method, each time with its body "
    "rewritten (argsMinusX -> argsMinusFirstX -> Command.argsMinusFirstX), a rename into "
    "another package (genMarkdown in man_docs.go -> doc.genMan), a receiver type that went "
    "away (Commander.SetOutput -> Command.SetOutput, across three files), a function "
    "extracted from inline code (legacyArgs); Java class renames (Executioner -> Computer, "
    "TestRuleTestWatchman -> TestWatcher, FilterFactoryFactory -> FilterFactories, "
    "JUnitCommandLineParser -> JUnitCommandLineParseResult), parameter-type changes "
    "(Description -> Request, Class -> TestClass), a method renamed with its body rewritten "
    "(apply -> createFilterFromFilterSpec), a package move (experimental.validator -> "
    "validator), an interface method that became an abstract class's; Rust moves across "
    "crates (unescape: src/args.rs -> src/unescape.rs -> grep-cli -> crates/cli, through the "
    "xrep -> ripgrep crate rename), a struct and file rename (Subject -> Haystack), a file "
    "path reused by an unrelated module (src/search.rs), a function beside a same-named "
    "method (search_path).",
    "Dropped before any warpline run: junit4 FailOnTimeout.evaluate (its history runs "
    "into Timeout, a nested class of JUnit4MethodRunner among eight run(Roadie) methods "
    "that a one-line declaration pattern cannot tell apart); ripgrep Parser::parse_star "
    "(the id of an impl over a lifetime-only generic could not be fixed from the dialect's "
    "documentation alone); ripgrep's pattern_to_str (rewritten as grep-cli's "
    "pattern_from_os) and default_color_specs (its older text only in an example file).",
]

HELDOUT: dict[str, list[dict[str, Any]]] = {
    "cobra": [
        {"language": "go", "verified": "argsMinusX (command.go, 10a8494) renamed "
         "argsMinusFirstX (36aee64, 'prevent removal of valid arguments': same parameters, "
         "both callers switched, now removing only the first x; 0.35 similar); the function "
         "became the method Command.argsMinusFirstX in place with its body rewritten "
         "(6b0bd30, 'improves argsMinusFirstX()': same doc comment, the one caller switched "
         "to c.argsMinusFirstX; 0.39 similar)",
         "segments": [_go("command.go", "argsMinusFirstX", "Command"),
                      _go("command.go", "argsMinusFirstX", None),
                      _go("command.go", "argsMinusX", None)]},
        {"language": "go", "verified": "genMarkdown in man_docs.go (9e77886, the man "
         "generator's body despite its name) renamed genMan in package doc, "
         "man_docs.go -> doc/man_docs.go (b3f29e9, R084; own text 0.99 similar)",
         "segments": [_go("doc/man_docs.go", "genMan", None, _DOC),
                      _go("man_docs.go", "genMarkdown", None)]},
        {"language": "go", "verified": "Commander.SetOutput added in cobra.go (6067837), "
         "moved to the new commander.go (62fb674), became Command.SetOutput in command.go "
         "when Commander went (79bdde5, same body and comment; command.go had no SetOutput "
         "before)",
         "segments": [_go("command.go", "SetOutput", "Command"),
                      _go("commander.go", "SetOutput", "Commander"),
                      _go("cobra.go", "SetOutput", "Commander")]},
        {"language": "go", "verified": "legacyArgs added in the new args.go (f20b4e9) from "
         "inline code of Command.Find (Find stays, calling it): new, no predecessor",
         "segments": [_go("args.go", "legacyArgs", None)]},
        {"language": "go", "verified": "printOptions, a function throughout: md_docs.go "
         "(8a18f25) -> doc/md_docs.go (b3f29e9, R066)",
         "segments": [_go("doc/md_docs.go", "printOptions", None, _DOC),
                      _go("md_docs.go", "printOptions", None)]},
    ],
}

_R = "src/main/java/org/junit/runner/"
_V = "src/main/java/org/junit/"
_CF_REQ = r"Filter createFilterFromFilterSpec\(Request "
_CF_DESC = r"Filter createFilterFromFilterSpec\(Description "
_CF_STR = r"Filter createFilterFromFilterSpec\(String "
_APPLY = r"public Filter apply\((final )?String filterSpec\)"
_VAC_TC = r"validateAnnotatedClass\(TestClass "
_VAC_C = r"validateAnnotatedClass\(Class<\?> type\)"
_VAC_CL = r"validateAnnotatedClass\(Class<\?> type, List"
_STARTING = r"void starting\(Description "
_SUITE = r"(Suite|Runner) getSuite\("
_REQUEST = r"Request createRequest\(Computer "

HELDOUT["junit4"] = [
    {"language": "java", "verified": "FilterFactoryFactory.apply(String) (196c4ed7) renamed "
     "createFilterFromFilterSpec(String) with its body rewritten (0a9a3895: the caller in "
     "JUnitCore switched; 0.48 similar); -> (Description, String) (5820172f, 0.72); class "
     "renamed FilterFactories and the method made static (b01900fd, R075); -> (Request, "
     "String) (a7537088): each signature change a new locator",
     "segments": [_java(_R + "FilterFactories.java", _CF_REQ,
                        "runner.FilterFactories.createFilterFromFilterSpec(Request,String)"),
                  _java(_R + "FilterFactories.java", _CF_DESC,
                        "runner.FilterFactories.createFilterFromFilterSpec(Description,String)"),
                  _java(_R + "FilterFactoryFactory.java", _CF_DESC,
                        "runner.FilterFactoryFactory.createFilterFromFilterSpec"
                        "(Description,String)"),
                  _java(_R + "FilterFactoryFactory.java", _CF_STR,
                        "runner.FilterFactoryFactory.createFilterFromFilterSpec(String)"),
                  _java(_R + "FilterFactoryFactory.java", _APPLY,
                        "runner.FilterFactoryFactory.apply(String)", before="0a9a3895")]},
    {"language": "java", "verified": "interface method validateAnnotatedClass(Class, List) "
     "(48af7e79); the interface became a class (bae4bd80), abstract with the method "
     "returning its list, (Class, List) -> (Class) (1273a356, 0.55 similar, read: same "
     "method, the errors parameter became the return value); package experimental.validator"
     " -> validator (e02beea0, R096); (Class) -> (TestClass) (d9054149, 0.94)",
     "segments": [_java(_V + "validator/AnnotationValidator.java", _VAC_TC,
                        "validator.AnnotationValidator.validateAnnotatedClass(TestClass)"),
                  _java(_V + "validator/AnnotationValidator.java", _VAC_C,
                        "validator.AnnotationValidator.validateAnnotatedClass(Class)"),
                  _java(_V + "experimental/validator/AnnotationValidator.java", _VAC_C,
                        "experimental.validator.AnnotationValidator.validateAnnotatedClass"
                        "(Class)"),
                  _java(_V + "experimental/validator/AnnotationValidator.java", _VAC_CL,
                        "experimental.validator.AnnotationValidator.validateAnnotatedClass"
                        "(Class,List)")]},
    {"language": "java", "verified": "TestRuleTestWatchman added beside TestWatchman "
     "(4041354a, a new class; TestWatchman stays: starting is new there); class renamed "
     "TestWatcher (30876886, R073); public -> protected later (same locator)",
     "segments": [_java(_V + "rules/TestWatcher.java", _STARTING,
                        "rules.TestWatcher.starting(Description)"),
                  _java(_V + "rules/TestRuleTestWatchman.java", _STARTING,
                        "rules.TestRuleTestWatchman.starting(Description)")]},
    {"language": "java", "verified": "Executioner added (432e3e27, nothing removed), "
     "renamed Computer (a72b0dbe, R095); return type Suite -> Runner (85578d48.., not in "
     "the locator)",
     "segments": [_java(_R + "Computer.java", _SUITE,
                        "runner.Computer.getSuite(RunnerBuilder,Class[])"),
                  _java(_R + "Executioner.java", _SUITE,
                        "runner.Executioner.getSuite(RunnerBuilder,Class[])")]},
    {"language": "java", "verified": "createRequest(Computer) added to JUnitCommandLineParser "
     "(34336085, from JUnitCore's inline code, which stays in part); class renamed "
     "JUnitCommandLineParseResult (b026c088, R084)",
     "segments": [_java(_R + "JUnitCommandLineParseResult.java", _REQUEST,
                        "runner.JUnitCommandLineParseResult.createRequest(Computer)"),
                  _java(_R + "JUnitCommandLineParser.java", _REQUEST,
                        "runner.JUnitCommandLineParser.createRequest(Computer)")]},
]


def _top(path: str, name: str, locator: str) -> dict[str, Any]:
    """A module-level function only (a same-named method of the file is indented)."""
    return {"path": path, "start": rf"^(pub(\([^)]*\))? )?fn {name}\b",
            "locator": "rust:function:" + locator}


HELDOUT["ripgrep"] = [
    {"language": "rust", "verified": "unescape in src/args.rs (812cdb1, crate xrep, renamed "
     "ripgrep by a744ec1) -> src/unescape.rs (92dc402, 'Switch from Docopt to Clap', "
     "1.00 similar) -> grep-cli/src/escape.rs (4846d63, 'grep-cli: introduce new grep-cli "
     "crate', 0.76) -> crates/cli (fdd8510)",
     "segments": [_rs("crates/cli/src/escape.rs", "unescape", "grep_cli.escape.unescape"),
                  _rs("grep-cli/src/escape.rs", "unescape", "grep_cli.escape.unescape"),
                  _rs("src/unescape.rs", "unescape", "ripgrep.unescape.unescape"),
                  _rs("src/args.rs", "unescape", "ripgrep.args.unescape")]},
    {"language": "rust", "verified": "search_parallel added in src/main.rs with libripgrep "
     "(bb110c1) -> crates/core/main.rs (fdd8510, R100); its parameters changed by the "
     "lexopt rewrite (082245d): same locator",
     "segments": [_rs("crates/core/main.rs", "search_parallel",
                      "ripgrep~crates.core.main.search_parallel"),
                  _rs("src/main.rs", "search_parallel", "ripgrep.search_parallel")]},
    {"language": "rust", "verified": "Subject::is_stdin (src/subject.rs, bb110c1) -> "
     "crates/core/subject.rs (fdd8510) -> Haystack::is_stdin in crates/core/haystack.rs "
     "(082245d, R056: struct and file renamed)",
     "segments": [_rs("crates/core/haystack.rs", "is_stdin",
                      "ripgrep~crates.core.haystack.Haystack.impl#<>.is_stdin"),
                  _rs("crates/core/subject.rs", "is_stdin",
                      "ripgrep~crates.core.subject.Subject.impl#<>.is_stdin"),
                  _rs("src/subject.rs", "is_stdin", "ripgrep.subject.Subject.impl#<>.is_stdin")]},
    {"language": "rust", "verified": "skip_filesize added to ignore/src/walk.rs (49fd668) "
     "-> crates/ignore (fdd8510)",
     "segments": [_rs("crates/ignore/src/walk.rs", "skip_filesize",
                      "ignore.walk.skip_filesize"),
                  _rs("ignore/src/walk.rs", "skip_filesize", "ignore.walk.skip_filesize")]},
    {"language": "rust", "verified": "the module-level search_path (beside the method "
     "SearchWorker::search_path) added in a new src/search.rs (bb110c1: the path of an "
     "unrelated 2016 module renamed search_stream.rs in e3da726) -> crates/core/search.rs "
     "(fdd8510)",
     "segments": [_top("crates/core/search.rs", "search_path",
                       "ripgrep~crates.core.search.search_path"),
                  _top("src/search.rs", "search_path", "ripgrep.search.search_path")]},
]

NOTES: dict[str, str] = {}

CORRECTIONS: list[str] = []
