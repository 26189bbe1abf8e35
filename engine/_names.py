"""Tool names that providers accept, and a reversible mapping for those they reject.

OpenAI (and Anthropic, Gemini) accept ``^[a-zA-Z0-9_-]{1,64}$``. A name
outside that is still registered (manifests may use dots or long names),
with a warning, and exports show :func:`safe_name` instead; the registry
keeps the safe name as an alias so calls coming back under it find the tool.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["PROVIDER_NAME", "is_provider_safe", "safe_name"]

PROVIDER_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


def is_provider_safe(name: str) -> bool:
    """True when every major provider accepts ``name`` as a function name."""
    return PROVIDER_NAME.fullmatch(name) is not None


def safe_name(name: str) -> str:
    """``name`` itself when safe, else a sanitised name with a short stable hash.

    The hash of the original keeps two different unsafe names (``a.b`` and
    ``a b``) from colliding on the same safe name.
    """
    if is_provider_safe(name):
        return name
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    stem = _UNSAFE.sub("_", name).strip("_")[:55] or "tool"
    return f"{stem}_{digest}"
