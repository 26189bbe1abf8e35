"""The manifest meta-schema (JSON Schema 2020-12), installed as ``tooldeck.schemas``.

A package (not just a folder) so that ``importlib.resources`` finds it the same way in a
wheel and in an editable install; see ``tooldeck._resources``.
"""
