"""The hand-built Rust, Go and Java histories that ``_history_truth_lang.py`` judges.

Each target lists its segments newest first: the path, a regular expression matching the
declaration's first line (exactly one line of a version), the locator there, and optionally
``before``: a commit from which on the segment no longer applies (the old name was kept by
a new definition while the body went on under another). Chosen and segmented from git
alone (``git log -S/-G``, ``git log -L``, ``git show`` of each boundary) before warpline
was run on the corpus; each boundary's reading is in ``NOTES``.
"""

from __future__ import annotations

from typing import Any

ABOUT = ("Function histories in Rust (ripgrep), Go (cobra) and Java (junit4): 10 per "
         "corpus, chosen and segmented from git alone (git log -S/-G/--follow, git show of "
         "each boundary) and written here before warpline was run on them; built by "
         "bench/_history_truth_lang.py (no tree-sitter, no warpline: universal-ctags end "
         "lines for Go and Java, a brace-matching lexer for Rust), scored by "
         "bench/bench_history_truth.py --truth bench/lineage_truth_lang.json.")
SELECTION = [
    "Favoured: renames (initHelpCmd -> InitDefaultHelpCmd, childBlock -> methodBlock, "
    "write_path -> write, should_ignores -> has_any_ignore_options -> has_any_ignore_rules), "
    "moves across files and packages/crates (man_docs.go -> doc/, src/types.rs -> the ignore "
    "crate, PathPrinter into grep-printer), Rust impl moves (Pattern -> Tokens, IgnoreOptions "
    "-> Ignore), method <-> function and receiver-type changes in Go (Command.GenManTree -> "
    "doc.GenManTree, Commander -> Command, BashCompDirective -> ShellCompDirective), Java "
    "overloads and a parameter-type change (expect(Class) beside expect(Matcher), "
    "childBlock(TestMethod) -> childBlock(FrameworkMethod)), class renames (TestMethod -> "
    "FrameworkMethod, TimeWatcher -> Stopwatch, ClassUtil -> Classes), a body carried on "
    "under a new name while the old name stays as a wrapper (GenManTree -> "
    "GenManTreeFromOpts, Execute -> ExecuteC, GenMarkdown -> GenMarkdownCustom).",
    "Left in on purpose: package/crate names that change without the file changing (cobra's "
    "go.mod added in 5755ecf; ripgrep's Cargo.toml xrep -> ripgrep in a744ec1): the truth "
    "keeps the older commits (first written with no event there; see `corrections`).",
    "Dropped before any warpline run (recorded in their replacement's note): stringInSlice "
    "(a move split over two commits), Stopwatch.runtime (born after the class rename), "
    "HyperlinkFormat::from_str (rewritten with a nested enum).",
]

_COBRA = "go:function:github.com/spf13/cobra"


def _go(path: str, name: str, recv: str | None, package: str = _COBRA,
        before: str | None = None) -> dict[str, Any]:
    head = rf"^func \(\w+ \*?{recv}\) {name}\(" if recv else rf"^func {name}\("
    head += r"\)" if name == "initHelp" else ""
    segment = {"path": path, "start": head,
               "locator": f"{package}.{recv + '.' if recv else ''}{name}"}
    if before:
        segment["before"] = before
    return segment


_DOC = _COBRA + "/doc"

TARGETS: dict[str, list[dict[str, Any]]] = {
    "cobra": [
        {"language": "go", "verified": "method Command.GenManTree in man_docs.go (9e77886) "
         "became function GenManTree of package doc in doc/man_docs.go (b3f29e9, R084); its "
         "body went on in the new GenManTreeFromOpts, GenManTree kept its name as a wrapper "
         "(e291587, diff read)",
         "segments": [_go("doc/man_docs.go", "GenManTreeFromOpts", None, _DOC),
                      _go("doc/man_docs.go", "GenManTree", None, _DOC, before="e291587"),
                      _go("man_docs.go", "GenManTree", "Command")]},
        {"language": "go", "verified": "GenMarkdown's body went on as GenMarkdownCustom, "
         "GenMarkdown kept as a wrapper (1d99c8f, diff read); function -> method of Command "
         "(9e77886: the function stayed as a wrapper calling the new method, which holds the "
         "body, diff read); method -> function of package doc, md_docs.go -> doc/md_docs.go "
         "(b3f29e9, R066)",
         "segments": [_go("doc/md_docs.go", "GenMarkdownCustom", None, _DOC),
                      _go("md_docs.go", "GenMarkdownCustom", "Command"),
                      _go("md_docs.go", "GenMarkdownCustom", None, before="9e77886"),
                      _go("md_docs.go", "GenMarkdown", None, before="1d99c8f")]},
        {"language": "go", "verified": "method hasSeeAlso added in the new doc_util.go "
         "(9e77886: md_docs.go's inline test replaced by the call, nothing removed); became "
         "function of package doc in doc/util.go (b3f29e9, R069)",
         "segments": [_go("doc/util.go", "hasSeeAlso", None, _DOC),
                      _go("doc_util.go", "hasSeeAlso", "Command")]},
        {"language": "go", "verified": "Commander.initHelp (commander.go, fb2146e) moved to "
         "Command.initHelp in command.go when Commander went (79bdde5); initHelp split into "
         "initHelpFlag (3 lines) and initHelpCmd (the help command's body, the larger half; "
         "ae28810); renamed InitDefaultHelpCmd (52ae6a1)",
         "segments": [_go("command.go", "InitDefaultHelpCmd", "Command"),
                      _go("command.go", "initHelpCmd", "Command"),
                      _go("command.go", "initHelp", "Command"),
                      _go("commander.go", "initHelp", "Commander")]},
        {"language": "go", "verified": "custom_completions.go renamed completions.go "
         "(b312f0a, R079): same package, same locator",
         "segments": [_go("completions.go", "RegisterFlagCompletionFunc", "Command"),
                      _go("custom_completions.go", "RegisterFlagCompletionFunc", "Command")]},
        {"language": "go", "verified": "receiver type BashCompDirective renamed "
         "ShellCompDirective (b84ef40); file renamed completions.go (b312f0a)",
         "segments": [_go("completions.go", "string", "ShellCompDirective"),
                      _go("custom_completions.go", "string", "ShellCompDirective"),
                      _go("custom_completions.go", "string", "BashCompDirective")]},
        {"language": "go", "verified": "Find moved cobra.go -> new command.go (62fb674, "
         "'Organize the files a bit better'): same package",
         "segments": [_go("command.go", "Find", "Command"),
                      _go("cobra.go", "Find", "Command")]},
        {"language": "go", "verified": "Commander.Execute in cobra.go (bbb8e6e) moved to the "
         "new commander.go (62fb674), became Command.Execute in command.go when Commander "
         "went (79bdde5); its body went on as ExecuteC, Execute kept as a one-line wrapper "
         "(3f60599, diff read). stringInSlice was the first choice here, dropped before any "
         "run: removed from args.go in 099c5ae and re-added in cobra.go by the next commit "
         "65c8acb (a move split over two commits, outside per-commit lineage by design)",
         "segments": [_go("command.go", "ExecuteC", "Command"),
                      _go("command.go", "Execute", "Command", before="3f60599"),
                      _go("commander.go", "Execute", "Commander"),
                      _go("cobra.go", "Execute", "Commander")]},
        {"language": "go", "verified": "custom_completions.go renamed completions.go "
         "(b312f0a, R079); signature edits (b84ef40, 6c3c116)",
         "segments": [_go("completions.go", "getCompletions", "Command"),
                      _go("custom_completions.go", "getCompletions", "Command")]},
        {"language": "go", "verified": "bash_completions.go since 9b2e682; its parameter list "
         "changed four times (463be14, e0479ff, de6b168, fd32f09, 652c755): same locator",
         "segments": [_go("bash_completions.go", "writeFlag", None)]},
    ],
}

_M = "src/main/java/org/junit/"
_O = "src/org/junit/"


def _java(path: str, start: str, locator: str, before: str | None = None,
          since: str | None = None) -> dict[str, Any]:
    segment = {"path": path, "start": start, "locator": "java:method:org.junit." + locator}
    if before:
        segment["before"] = before
    if since:
        segment["since"] = since
    return segment


_EXPECT = r"\bexpect\(Class<"
_NEWFILE = r"\bnewFile\(String "
_INVOKE = r"Object invokeExplosively\("
_NANOS = r"long getNanos\(\)"
_VALIDATE = r"void validate\(TestClass "
_GETCLASS = r"getClass\(String className\)"
_RUN = r"public void run\((final )?RunNotifier "
_CHECK = r"void checkThat\((final )?T value"
_BLOCK = r"Statement methodBlock\((final )?FrameworkMethod "
_CHILD = r"Statement childBlock\((final )?FrameworkMethod "
_CHILD_T = r"Statement childBlock\((final )?TestMethod "
_CHAIN_T = r"Statement chain\(TestMethod method\)"
_PROTECTED = r"void runProtected\(RunNotifier notifier, Description description,$"
_ASSERT = r"void assertEquals\(Object expected,\s*Object actual\)"

TARGETS["junit4"] = [
    {"language": "java", "verified": "overload beside expect(Matcher); the file moved "
     "experimental/interceptor -> experimental/rules -> rules (git R098 twice): the package "
     "changes the locator each time",
     "segments": [_java(_M + "rules/ExpectedException.java", _EXPECT,
                        "rules.ExpectedException.expect(Class)"),
                  _java(_M + "experimental/rules/ExpectedException.java", _EXPECT,
                        "experimental.rules.ExpectedException.expect(Class)"),
                  _java(_M + "experimental/interceptor/ExpectedException.java", _EXPECT,
                        "experimental.interceptor.ExpectedException.expect(Class)")]},
    {"language": "java", "verified": "overload beside newFile(); the file moved "
     "experimental/interceptor -> experimental/rules -> rules (R097 twice)",
     "segments": [_java(_M + "rules/TemporaryFolder.java", _NEWFILE,
                        "rules.TemporaryFolder.newFile(String)"),
                  _java(_M + "experimental/rules/TemporaryFolder.java", _NEWFILE,
                        "experimental.rules.TemporaryFolder.newFile(String)"),
                  _java(_M + "experimental/interceptor/TemporaryFolder.java", _NEWFILE,
                        "experimental.interceptor.TemporaryFolder.newFile(String)")]},
    {"language": "java", "verified": "class TestMethod renamed FrameworkMethod (R051), "
     "src/ -> src/main/java (R100), internal.runners.model -> runners -> runners.model "
     "(R094, R098): git log --follow; varargs erased to []",
     "segments": [_java(_M + "runners/model/FrameworkMethod.java", _INVOKE,
                        "runners.model.FrameworkMethod.invokeExplosively(Object,Object[])"),
                  _java(_M + "runners/FrameworkMethod.java", _INVOKE,
                        "runners.FrameworkMethod.invokeExplosively(Object,Object[])"),
                  _java(_M + "internal/runners/model/FrameworkMethod.java", _INVOKE,
                        "internal.runners.model.FrameworkMethod.invokeExplosively"
                        "(Object,Object[])"),
                  _java(_O + "internal/runners/model/FrameworkMethod.java", _INVOKE,
                        "internal.runners.model.FrameworkMethod.invokeExplosively"
                        "(Object,Object[])"),
                  _java(_O + "internal/runners/model/TestMethod.java", _INVOKE,
                        "internal.runners.model.TestMethod.invokeExplosively"
                        "(Object,Object[])")]},
    {"language": "java", "verified": "class TimeWatcher renamed Stopwatch (cbcb29a, R084, "
     "rules/TimeWatcher.java -> rules/Stopwatch.java). runtime(TimeUnit) was the first "
     "choice, dropped before any run: it was added after the rename (ebc674b)",
     "segments": [_java(_M + "rules/Stopwatch.java", _NANOS, "rules.Stopwatch.getNanos()"),
                  _java(_M + "rules/TimeWatcher.java", _NANOS,
                        "rules.TimeWatcher.getNanos()")]},
    {"language": "java", "verified": "rules/RuleFieldValidator.java moved to "
     "internal/runners/rules (R096), then the class renamed RuleMemberValidator (R094)",
     "segments": [_java(_M + "internal/runners/rules/RuleMemberValidator.java", _VALIDATE,
                        "internal.runners.rules.RuleMemberValidator.validate(TestClass,List)"),
                  _java(_M + "internal/runners/rules/RuleFieldValidator.java", _VALIDATE,
                        "internal.runners.rules.RuleFieldValidator.validate(TestClass,List)"),
                  _java(_M + "rules/RuleFieldValidator.java", _VALIDATE,
                        "rules.RuleFieldValidator.validate(TestClass,List)")]},
    {"language": "java", "verified": "class ClassUtil renamed Classes (R092); overload "
     "getClass(String, Class) added beside it later",
     "segments": [_java(_M + "internal/Classes.java", _GETCLASS,
                        "internal.Classes.getClass(String)"),
                  _java(_M + "internal/ClassUtil.java", _GETCLASS,
                        "internal.ClassUtil.getClass(String)")]},
    {"language": "java", "verified": "ParentRunner: src/org/junit/internal/runners -> "
     "src/main/java (R067 with the layout move) -> runners (R090): package "
     "internal.runners -> runners. Corrected after the first score: at 24a5aad run is "
     "TestClass.runProtected(RunNotifier, Description, Statement) moved and renamed (same "
     "body, read side by side), not new; runProtected's Statement version dates from "
     "4e1018a (its Runnable version 0.45 similar, below 0.6: the origin)",
     "segments": [_java(_M + "runners/ParentRunner.java", _RUN,
                        "runners.ParentRunner.run(RunNotifier)"),
                  _java(_M + "internal/runners/ParentRunner.java", _RUN,
                        "internal.runners.ParentRunner.run(RunNotifier)"),
                  _java(_O + "internal/runners/ParentRunner.java", _RUN,
                        "internal.runners.ParentRunner.run(RunNotifier)"),
                  _java(_O + "internal/runners/model/TestClass.java", _PROTECTED,
                        "internal.runners.model.TestClass.runProtected"
                        "(RunNotifier,Description,Statement)")]},
    {"language": "java", "verified": "generic overload beside checkThat(String, T, Matcher); "
     "the file moved experimental/interceptor -> experimental/rules -> rules",
     "segments": [_java(_M + "rules/ErrorCollector.java", _CHECK,
                        "rules.ErrorCollector.checkThat(T,Matcher)"),
                  _java(_M + "experimental/rules/ErrorCollector.java", _CHECK,
                        "experimental.rules.ErrorCollector.checkThat(T,Matcher)"),
                  _java(_M + "experimental/interceptor/ErrorCollector.java", _CHECK,
                        "experimental.interceptor.ErrorCollector.checkThat(T,Matcher)")]},
    {"language": "java", "verified": "JUnit4ClassRunner.childBlock(TestMethod) added "
     "(24a5aad); parameter type TestMethod -> FrameworkMethod (8bed6c9: a new locator); "
     "src/ -> src/main/java (8226e3e); the class renamed BlockJUnit4ClassRunner in a new "
     "file while the old JUnit4ClassRunner came back without childBlock (078e45b); "
     "internal.runners -> runners; renamed methodBlock in place (1fcd990): git log -G. "
     "Corrected after the first score: childBlock(TestMethod) at 24a5aad is chain(TestMethod)"
     " renamed, text identical; that chain(TestMethod) was written at 59b1e29 from "
     "chain(TestMethod, Object) (own text 0.44 similar, below the Python truth's 0.6: its "
     "origin), so the older chain(TestMethod) of 576377b..0dbe9ee is another definition",
     "segments": [_java(_M + "runners/BlockJUnit4ClassRunner.java", _BLOCK,
                        "runners.BlockJUnit4ClassRunner.methodBlock(FrameworkMethod)"),
                  _java(_M + "runners/BlockJUnit4ClassRunner.java", _CHILD,
                        "runners.BlockJUnit4ClassRunner.childBlock(FrameworkMethod)"),
                  _java(_M + "internal/runners/BlockJUnit4ClassRunner.java", _CHILD,
                        "internal.runners.BlockJUnit4ClassRunner.childBlock(FrameworkMethod)"),
                  _java(_M + "internal/runners/JUnit4ClassRunner.java", _CHILD,
                        "internal.runners.JUnit4ClassRunner.childBlock(FrameworkMethod)"),
                  _java(_O + "internal/runners/JUnit4ClassRunner.java", _CHILD,
                        "internal.runners.JUnit4ClassRunner.childBlock(FrameworkMethod)"),
                  _java(_O + "internal/runners/JUnit4ClassRunner.java", _CHILD_T,
                        "internal.runners.JUnit4ClassRunner.childBlock(TestMethod)"),
                  _java(_O + "internal/runners/JUnit4ClassRunner.java", _CHAIN_T,
                        "internal.runners.JUnit4ClassRunner.chain(TestMethod)",
                        since="59b1e29")]},
    {"language": "java", "verified": "Assert: src/org/junit -> src/main/java/org/junit with "
     "the layout moves (org/ -> src/org 40cc52c, -> src/main/java 8226e3e); an overload "
     "among 20-odd assertEquals",
     "segments": [_java(_M + "Assert.java", _ASSERT, "Assert.assertEquals(Object,Object)"),
                  _java(_O + "Assert.java", _ASSERT, "Assert.assertEquals(Object,Object)"),
                  _java("org/junit/Assert.java", _ASSERT,
                        "Assert.assertEquals(Object,Object)")]},
]

def _rs(path: str, name: str, locator: str, within: str | None = None) -> dict[str, Any]:
    segment = {"path": path, "start": rf"^\s*(pub(\([^)]*\))? )?fn {name}\b",
               "locator": "rust:function:" + locator}
    if within:
        segment["within"] = within
    return segment


_PP = "PathPrinter<$0>.impl#<$0>."
_DISPLAY = r"^impl (std::)?fmt::Display for HyperlinkFormat \{"

TARGETS["ripgrep"] = [
    {"language": "rust", "verified": "src/path_printer.rs -> crates/core/path_printer.rs "
     "(fdd8510, R100); moved into grep-printer's new path.rs as PathPrinter::write, body "
     "identical (23e2113 'printer: move PathPrinter into grep-printer', diff read)",
     "segments": [_rs("crates/printer/src/path.rs", r"write(?=\(&mut self, path)",
                      "grep_printer.path." + _PP + "write"),
                  _rs("crates/core/path_printer.rs", "write_path",
                      "ripgrep~crates.core.path_printer." + _PP + "write_path"),
                  _rs("src/path_printer.rs", "write_path",
                      "ripgrep.path_printer." + _PP + "write_path")]},
    {"language": "rust", "verified": "IgnoreOptions::should_ignores added with the ignore "
     "crate (d79add3), renamed has_any_ignore_options (f63c168), moved from impl "
     "IgnoreOptions to impl Ignore as has_any_ignore_rules with custom ignore files added "
     "(b71a110: the one caller switched, diff read)",
     "segments": [_rs("crates/ignore/src/dir.rs", "has_any_ignore_rules",
                      "ignore.dir.Ignore.impl#<>.has_any_ignore_rules"),
                  _rs("ignore/src/dir.rs", "has_any_ignore_rules",
                      "ignore.dir.Ignore.impl#<>.has_any_ignore_rules"),
                  _rs("ignore/src/dir.rs", "has_any_ignore_options",
                      "ignore.dir.IgnoreOptions.impl#<>.has_any_ignore_options"),
                  _rs("ignore/src/dir.rs", "should_ignores",
                      "ignore.dir.IgnoreOptions.impl#<>.should_ignores")]},
    {"language": "rust", "verified": "src/types.rs (crate ripgrep) -> ignore/src/types.rs "
     "(crate ignore, d79add3 'Move all gitignore matching to separate crate'; git sees no "
     "rename, the function's text 0.77 similar) -> crates/ignore (fdd8510)",
     "segments": [_rs("crates/ignore/src/types.rs", "select",
                      "ignore.types.TypesBuilder.impl#<>.select"),
                  _rs("ignore/src/types.rs", "select", "ignore.types.TypesBuilder.impl#<>.select"),
                  _rs("src/types.rs", "select", "ripgrep.types.TypesBuilder.impl#<>.select")]},
    {"language": "rust", "verified": "src/subject.rs -> crates/core/subject.rs (fdd8510); "
     "file renamed haystack.rs and SubjectBuilder renamed HaystackBuilder (082245d, R056)",
     "segments": [_rs("crates/core/haystack.rs", r"build(?=\(&self, dent)",
                      "ripgrep~crates.core.haystack.HaystackBuilder.impl#<>.build"),
                  _rs("crates/core/subject.rs", r"build(?=\(&self, dent)",
                      "ripgrep~crates.core.subject.SubjectBuilder.impl#<>.build"),
                  _rs("src/subject.rs", r"build(?=\(&self, dent)",
                      "ripgrep.subject.SubjectBuilder.impl#<>.build")]},
    {"language": "rust", "verified": "Pattern::to_regex_with in src/glob.rs (b55ecf3, crate "
     "xrep, renamed ripgrep by a744ec1 without touching the file); src/glob.rs -> "
     "globset/src/lib.rs (fdf2431, R); moved to impl Tokens in the new pattern.rs (175406d, "
     "git log -G); pattern.rs -> glob.rs (e96d930, R084); -> crates/globset (fdd8510)",
     "segments": [_rs("crates/globset/src/glob.rs", "to_regex_with",
                      "globset.glob.Tokens.impl#<>.to_regex_with"),
                  _rs("globset/src/glob.rs", "to_regex_with",
                      "globset.glob.Tokens.impl#<>.to_regex_with"),
                  _rs("globset/src/pattern.rs", "to_regex_with",
                      "globset.pattern.Tokens.impl#<>.to_regex_with"),
                  _rs("globset/src/lib.rs", "to_regex_with",
                      "globset.Pattern.impl#<>.to_regex_with"),
                  _rs("src/glob.rs", "to_regex_with",
                      "ripgrep.glob.Pattern.impl#<>.to_regex_with")]},
    {"language": "rust", "verified": "src/config.rs -> crates/core/config.rs (fdd8510, R100) "
     "-> crates/core/flags/config.rs (082245d, R095): the module path changes twice",
     "segments": [_rs("crates/core/flags/config.rs", "args",
                      "ripgrep~crates.core.flags.config.args"),
                  _rs("crates/core/config.rs", "args", "ripgrep~crates.core.config.args"),
                  _rs("src/config.rs", "args", "ripgrep.config.args")]},
    {"language": "rust", "verified": "grep-searcher/src/searcher/mod.rs -> crates/searcher "
     "(fdd8510, R100): crate and module names unchanged",
     "segments": [_rs("crates/searcher/src/searcher/mod.rs", "search_path",
                      "grep_searcher.searcher.Searcher.impl#<>.search_path"),
                  _rs("grep-searcher/src/searcher/mod.rs", "search_path",
                      "grep_searcher.searcher.Searcher.impl#<>.search_path")]},
    {"language": "rust", "verified": "a trait's default method (warpline's ~trait "
     "extension: loomweave emits no trait items); grep-searcher -> crates/searcher (fdd8510)",
     "segments": [_rs("crates/searcher/src/sink.rs", "context",
                      "grep_searcher.sink.Sink.~trait.context", within=r"^pub trait Sink\b"),
                  _rs("grep-searcher/src/sink.rs", "context",
                      "grep_searcher.sink.Sink.~trait.context", within=r"^pub trait Sink\b")]},
    {"language": "rust", "verified": "src/gitignore.rs (crate ripgrep) -> ignore/src/"
     "gitignore.rs (crate ignore, d79add3; same function, generic path parameter and Glob "
     "accessors, read side by side) -> crates/ignore (fdd8510)",
     "segments": [_rs("crates/ignore/src/gitignore.rs", "matched_stripped",
                      "ignore.gitignore.Gitignore.impl#<>.matched_stripped"),
                  _rs("ignore/src/gitignore.rs", "matched_stripped",
                      "ignore.gitignore.Gitignore.impl#<>.matched_stripped"),
                  _rs("src/gitignore.rs", "matched_stripped",
                      "ripgrep.gitignore.Gitignore.impl#<>.matched_stripped")]},
    {"language": "rust", "verified": "a trait impl's method (impl Display for HyperlinkFormat,"
     " f608d4d); hyperlink.rs -> hyperlink/mod.rs (66aa4a6, R088): module name unchanged. "
     "HyperlinkFormat's FromStr::from_str was the first choice, dropped before any run: "
     "rewritten with a nested enum when HyperlinkPattern became HyperlinkFormat",
     "segments": [_rs("crates/printer/src/hyperlink/mod.rs", "fmt",
                      "grep_printer.hyperlink.HyperlinkFormat.impl[Display].fmt",
                      within=_DISPLAY),
                  _rs("crates/printer/src/hyperlink.rs", "fmt",
                      "grep_printer.hyperlink.HyperlinkFormat.impl[Display].fmt",
                      within=_DISPLAY)]},
]

NOTES: dict[str, str] = {
    "5755ecf": "go.mod added (module github.com/spf13/cobra): before it the dialect names "
               "the package by its directory (docs/languages.md, Go): every locator below "
               "changes here (correction, see `corrections`)",
    "a744ec1": "Cargo.toml [package].name xrep -> ripgrep (git show a744ec1 -- Cargo.toml): "
               "every locator of the crate changes here (correction, see `corrections`)",
}

# (commit, HEAD-era locator prefix, the prefix before it), newest first.
RENAMED_BY_MANIFEST: dict[str, list[tuple[str, str, str]]] = {
    "cobra": [("5755ecf", "go:function:github.com/spf13/cobra/doc.", "go:function:doc."),
              ("5755ecf", "go:function:github.com/spf13/cobra.", "go:function:..")],
    "ripgrep": [("a744ec1", "rust:function:ripgrep.", "rust:function:xrep.")],
}

CORRECTIONS = [
    "2026-12-03, after the first score (written down before the rebuild): the segments had "
    "been written with HEAD's module names throughout, so the builder's own rule (a "
    "changed locator is `moved`) never saw the two commits where a manifest renamed "
    "modules without touching the files: cobra 5755ecf (go.mod added; the dialect names "
    "a package under no go.mod by its directory, docs/languages.md) and ripgrep a744ec1 "
    "(crate xrep -> ripgrep in Cargo.toml). Verified from git (git show of both "
    "manifests) and the documented dialect; the builder now takes RENAMED_BY_MANIFEST, "
    "which adds a `moved` at those commits to the 7 cobra and 2 ripgrep histories that "
    "cross them. The SELECTION note saying the truth has no event there is superseded. "
    "Nothing else in the truth was changed after looking, except:",
    "2026-12-03, junit4, reading the first score's extras: at 24a5aad ('Progress on "
    "ParentRunner') both ParentRunner.run and JUnit4ClassRunner.childBlock(TestMethod) were "
    "segmented as new, but run is TestClass.runProtected(RunNotifier, Description, "
    "Statement) moved to the new ParentRunner (same body) and childBlock is chain(TestMethod)"
    " renamed (identical text): git show 24a5aad, read side by side. Their predecessors' "
    "histories were followed back to the first boundary whose own text is below the Python "
    "truth builder's 0.6 (runProtected's Runnable version 0.45 at 4e1018a; chain(TestMethod,"
    " Object) 0.44 at 59b1e29): those are the origins, as in _history_truth_build.py.",
    "2026-12-04, reading cobra's Command.ExecuteC miss at fcd0c5a (a blank line removed "
    "from the body, nothing else): the builder compared own text with its blank lines, unlike "
    "the Python builder (_ast_truth.definitions drops them) and the per-commit truths "
    "(bench/_lang_events.py); DESIGN's 'changed' is the code's lines. The builder now compares "
    "without blank lines (_code); the rebuild changed that one commit of one history and "
    "nothing else in the 30.",
]
