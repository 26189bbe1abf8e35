"""What a reload reports, seen from the manifest layer that reloads.

The values live in :mod:`tooldeck._lastreload`, below the registry, which
answers ``registry.reload_status`` from the manifests that reloaded last.
"""

from __future__ import annotations

from .._lastreload import ReloadEvent, ReloadStatus

__all__ = ["ReloadEvent", "ReloadStatus"]
