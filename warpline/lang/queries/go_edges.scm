; Go edges: the nodes the built-in extractor resolves (warpline/graph/builtin/go_*.py).
; Each capture's name says what it is; the Python side reads its parent for the context.
(package_clause (package_identifier) @package)
(import_spec) @import
(identifier) @id
(type_identifier) @type
(qualified_type) @qualified
(selector_expression) @selector
