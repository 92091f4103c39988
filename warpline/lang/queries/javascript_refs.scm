; JavaScript names a definition uses, for the built-in edge extractor
; (warpline/graph/builtin/script_scan.py): imports and re-exports by their source string,
; every identifier (resolved by scope there), members of a name or `this`, declarations.
(import_statement source: (string) @import)
(export_statement source: (string) @reexport)
(identifier) @ident
(shorthand_property_identifier) @ident
(member_expression object: [(identifier) (this)]
  property: [(property_identifier) (private_property_identifier)]) @member
(member_expression object: (member_expression object: (this)
    property: [(property_identifier) (private_property_identifier)])
  property: [(property_identifier) (private_property_identifier)]) @member
(variable_declarator name: (identifier) @decl)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @decl))
(variable_declarator name: (object_pattern (pair_pattern value: (identifier) @decl)))
(formal_parameters (identifier) @param)
(formal_parameters (assignment_pattern left: (identifier) @param))
(formal_parameters (rest_pattern (identifier) @param))
(formal_parameters (object_pattern (shorthand_property_identifier_pattern) @param))
(arrow_function parameter: (identifier) @param)
(catch_clause parameter: (identifier) @param)
(function_declaration name: (identifier) @fname)
(generator_function_declaration name: (identifier) @fname)
(class_declaration name: (_) @fname)
(field_definition property: (_)) @field
(class_body (method_definition "static" name: (_) @static))
(method_definition) @callable
(function_declaration) @callable
(member_expression
  object: (call_expression
    function: [(identifier)
               (member_expression object: [(identifier) (this)] property: (property_identifier))])
  property: (property_identifier)) @retmember
