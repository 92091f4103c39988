; Go definitions: each capture's name is the language kind it records.
; Receivers, names and doc comments are read in warpline/lang/golang.py.
(function_declaration) @function
(method_declaration) @method
(type_spec type: (struct_type)) @struct
(type_spec type: (interface_type)) @interface
(type_spec type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
                  (slice_type) (map_type) (array_type) (function_type) (channel_type)]) @type
(type_alias) @type
