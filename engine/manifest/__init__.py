"""The manifest layer: YAML files -> specs -> registry groups, once or live.

Read (``_yamlsource``: hardened YAML with positions) -> check (``_metaschema``)
-> interpolate (``_interpolate``: ``${env:...}``, ``${config:...}``) -> build
(``_build``: specs, handler resolution through ``_resolve``, tools prepared
once) -> register (``_live``: one registry group per file, last good version
kept) ; ``_manifests`` is the one-shot form and ``_lint`` adds the checks CI
runs. Public names load on first use, like the top-level package's.
"""

import typing

from tooldeck._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from tooldeck.manifest._events import ReloadEvent, ReloadStatus
    from tooldeck.manifest._live import LiveManifests
    from tooldeck.manifest._loader import GROUP_PREFIX
    from tooldeck.manifest._manifests import LoadResult, from_manifests, load_manifests

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
    "GROUP_PREFIX": "tooldeck.manifest._loader",
    "LiveManifests": "tooldeck.manifest._live",
    "LoadResult": "tooldeck.manifest._manifests",
    "ReloadEvent": "tooldeck.manifest._events",
    "ReloadStatus": "tooldeck.manifest._events",
    "from_manifests": "tooldeck.manifest._manifests",
    "load_manifests": "tooldeck.manifest._manifests",
}


__getattr__ = _lazy_getattr(__name__, _EXPORTS)
