"""Built-in handlers that ship with tooldeck.

This package holds tooldeck's own handler functions (for example the read-only file tools in
``tooldeck.handlers.files``), which manifests reference as
``tooldeck.handlers.files:read_file``. A manifest may only point at modules on the engine's
allow-list, whose default prefix is ``tooldeck.handlers``; any other
module must be allow-listed explicitly in the configuration before a tool can call into it.
"""
