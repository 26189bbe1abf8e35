"""The manifests shipped with tooldeck, installed as ``tooldeck.bundled``.

A package (not just a folder) so that ``importlib.resources`` finds it the same way in a
wheel and in an editable install; see ``tooldeck._resources``.
"""
