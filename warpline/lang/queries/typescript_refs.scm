; TypeScript names a definition uses, for the built-in edge extractor
; (warpline/graph/builtin/script_scan.py): imports and re-exports by their source string,
; every identifier and type name (resolved by scope there), members of a name or `this`,
; declarations.
(import_statement source: (string) @import)
(export_statement source: (string) @reexport)
(identifier) @ident
(shorthand_property_identifier) @ident
(type_identifier) @ident
(member_expression object: [(identifier) (this)]
  property: [(property_identifier) (private_property_identifier)]) @member
(member_expression object: (member_expression object: (this)
    property: [(property_identifier) (private_property_identifier)])
  property: [(property_identifier) (private_property_identifier)]) @member
(variable_declarator name: (identifier) @decl)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @decl))
(variable_declarator name: (object_pattern (pair_pattern value: (identifier) @decl)))
(required_parameter pattern: (identifier) @param)
(optional_parameter pattern: (identifier) @param)
(required_parameter pattern: (object_pattern (shorthand_property_identifier_pattern) @param))
(required_parameter pattern: (rest_pattern (identifier) @param))
(arrow_function parameter: (identifier) @param)
(catch_clause parameter: (identifier) @param)
(function_declaration name: (identifier) @fname)
(generator_function_declaration name: (identifier) @fname)
(class_declaration name: (_) @fname)
(abstract_class_declaration name: (_) @fname)
(interface_declaration name: (_) @fname)
(type_alias_declaration name: (_) @fname)
(enum_declaration name: (_) @fname)
(type_parameter name: (type_identifier) @param)
(public_field_definition name: (_) type: (type_annotation)) @field
(class_body (method_definition "static" name: (_) @static))
(type_alias_declaration name: (type_identifier) value: [(generic_type) (type_identifier)]) @alias
(method_definition) @callable
(function_declaration) @callable
(member_expression
  object: (call_expression
    function: [(identifier)
               (member_expression object: [(identifier) (this)] property: (property_identifier))])
  property: (property_identifier)) @retmember
