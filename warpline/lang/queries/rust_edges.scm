; Rust edges: the nodes the built-in extractor resolves (warpline/graph/builtin/rust_*.py).
; Each capture's name says what it is; the Python side reads its parent for the context.
(call_expression function: (_) @callee)
(macro_invocation) @macro
(scoped_identifier) @path
(scoped_type_identifier) @tpath
(type_identifier) @type
(arguments (identifier) @arg)
(let_declaration) @let
(let_condition pattern: (_) @bind)
(for_expression pattern: (_) @bind)
(match_pattern) @bind
(closure_parameters) @bind
(identifier) @id
(use_declaration) @use
