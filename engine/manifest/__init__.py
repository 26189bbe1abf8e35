"""The manifest layer: YAML files -> specs -> registry groups, once or live.

Read (``tooldeck._yaml``: hardened YAML with positions) -> check (``_meta``: the
meta-schema) -> interpolate (``_interpolate``: ``${env:...}``, ``${config:...}``) -> build
(``_build``: specs, handler resolution through ``_resolve``, or from source through
``_static`` for ``lint --static``; tools prepared once) -> register (``_live``: one
registry group per file, last good version kept); ``_manifests`` is the one-shot form,
and ``tooldeck._lint`` adds the checks CI runs. Public names load on first use, like the
top-level package's.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from ._events import ReloadEvent, ReloadStatus
    from ._live import LiveManifests
    from ._loader import GROUP_PREFIX
    from ._manifests import LoadResult, from_manifests, load_manifests

__all__ = [
    "GROUP_PREFIX",
    "LiveManifests",
    "LoadResult",
    "ReloadEvent",
    "ReloadStatus",
    "from_manifests",
    "load_manifests",
]

_EXPORTS: dict[str, str] = {
    "GROUP_PREFIX": "._loader",
    "LiveManifests": "._live",
    "LoadResult": "._manifests",
    "ReloadEvent": "._events",
    "ReloadStatus": "._events",
    "from_manifests": "._manifests",
    "load_manifests": "._manifests",
}


__getattr__ = _lazy_getattr(__name__, _EXPORTS)
