; JavaScript definitions: each capture's name is the role it plays; names, kinds and spans
; are read in warpline/lang/script.py (docs/languages.md, "TypeScript and JavaScript").
; A value that is not a function (an object literal, a call, …) makes its binding, key or
; member a naming scope for the definitions inside it. Anonymous callbacks are never captured.
(function_declaration) @function
(generator_function_declaration) @function
(class_declaration) @class
(method_definition) @method
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression)]) @binding
(assignment_expression
  left: (member_expression)
  right: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression)]) @assignment
(assignment_expression
  left: (identifier)
  right: [(arrow_function) (function_expression) (generator_function) (class) (parenthesized_expression)]) @assignment
(export_statement
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression)]) @default
(pair
  key: [(property_identifier) (string) (number)]
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression)]) @property
(field_definition
  property: [(property_identifier) (private_property_identifier)]
  value: [(arrow_function) (function_expression) (generator_function) (class) (object) (call_expression) (new_expression) (parenthesized_expression) (ternary_expression) (binary_expression) (await_expression)]) @field
(function_expression name: (identifier)) @named
(generator_function name: (identifier)) @named
(class name: (_)) @named
