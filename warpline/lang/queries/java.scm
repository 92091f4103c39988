; Java definitions: each capture's name is the language kind it records.
; Names (parameter types erased to simple names) are read in warpline/lang/java.py.
(class_declaration) @class
(interface_declaration) @interface
(enum_declaration) @enum
(record_declaration) @record
(annotation_type_declaration) @annotation
(method_declaration) @method
(constructor_declaration) @constructor
(compact_constructor_declaration) @constructor
(annotation_type_element_declaration) @method
