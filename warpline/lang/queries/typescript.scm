; TypeScript definitions: each capture's name is the role it plays; names, kinds and spans
; are read in warpline/lang/script.py (docs/languages.md, "TypeScript and JavaScript").
; A value that is not a function (an object literal, a call, …) makes its binding, key or
; member a naming scope for the definitions inside it. Anonymous callbacks are never captured.
(function_declaration) @function
(generator_function_declaration) @function
(class_declaration) @class
(method_definition) @method
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @binding
(assignment_expression
  left: (member_expression)
  right: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @assignment
(assignment_expression
  left: (identifier)
  right: [(arrow_function) (function_expression) (generator_function) (class) (parenthesized_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @assignment
(export_statement
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @default
(pair
  key: [(property_identifier) (string) (number)]
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @property
(public_field_definition
  name: [(property_identifier) (private_property_identifier)]
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression) (as_expression) (satisfies_expression) (non_null_expression)]) @field
(function_expression name: (identifier)) @named
(generator_function name: (identifier)) @named
(class name: (_)) @named
; TypeScript's own declarations.
(abstract_class_declaration) @class
(function_signature) @function
(method_signature) @method
(abstract_method_signature) @method
(interface_declaration) @interface
(type_alias_declaration) @type
(enum_declaration) @enum
(internal_module) @namespace
