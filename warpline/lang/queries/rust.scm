; Rust definitions: each capture's name is the language kind it records.
; Nesting, names and the rules of where an item counts are read in warpline/lang/rust.py.
(function_item) @function
(trait_item body: (declaration_list (function_signature_item) @function))
(struct_item) @struct
(enum_item) @enum
(union_item) @union
(trait_item) @trait
(type_item) @type_alias
(const_item) @const
(static_item) @static
(macro_definition) @macro
(impl_item) @impl
(mod_item body: (declaration_list)) @module
