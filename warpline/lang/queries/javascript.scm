; JavaScript (and, below in typescript.scm, TypeScript) definitions: each capture's name is the role it plays; names, kinds and
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
