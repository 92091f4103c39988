; JavaScript definitions: each capture's name is the role it plays; names, kinds and
; spans are read in warpline/lang/script.py. Anonymous callbacks are never captured.
(function_declaration) @function
(generator_function_declaration) @function
(class_declaration) @class
(method_definition) @method
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @binding
(assignment_expression
  left: (member_expression)
  right: [(arrow_function) (function_expression) (generator_function) (class)]) @assignment
(export_statement
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @default
; TypeScript's own declarations.
(abstract_class_declaration) @class
(function_signature) @function
(method_signature) @method
(abstract_method_signature) @method
(interface_declaration) @interface
(type_alias_declaration) @type
(enum_declaration) @enum
(internal_module) @namespace
