; Java's edge sites and scopes, read by warpline/graph/builtin/java_scan.py.
; Scopes: declarations, anonymous class bodies, lambdas. Declared names: locals,
; parameters, resources, catch parameters, for-each variables. Sites: calls, `new`,
; this(...)/super(...), method references, type names, annotation names, field accesses.
(class_declaration) @type
(interface_declaration) @type
(enum_declaration) @type
(record_declaration) @type
(annotation_type_declaration) @type
(method_declaration) @method
(constructor_declaration) @method
(compact_constructor_declaration) @method
(annotation_type_element_declaration) @method
(lambda_expression) @lambda
(object_creation_expression) @new
(enum_constant) @constant
(object_creation_expression (class_body) @body)
(enum_constant body: (class_body) @body)
(local_variable_declaration) @local
(formal_parameter) @param
(spread_parameter) @param
(catch_formal_parameter) @catch
(enhanced_for_statement) @foreach
(resource type: (_)) @resource
(method_invocation) @call
(explicit_constructor_invocation) @ctor
(method_reference) @mref
(type_identifier) @typename
(marker_annotation name: (_) @annotation)
(annotation name: (_) @annotation)
(field_access) @field
(instanceof_expression) @instanceof
