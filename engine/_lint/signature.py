"""TD411: each declared manifest parameter against the handler's signature.

Three checks on a tool's explicit ``params`` (inferred ones match the handler
by construction):

- the declared JSON type holds values the handler's annotation cannot take
  (``type: string`` for an ``int``): an error, since every call carrying such
  a value fails with ``invalid_arguments`` (:func:`tooldeck._convert.fitted_converter`);
  a type the annotation takes only by a lossless conversion (``integer`` for a
  ``float``) is a warning, since it narrows what the model may send;
- a nullable type or ``default: null`` hands ``None`` to a handler whose
  annotation is not Optional and whose own default is not ``None``;
- a declared parameter the handler does not accept (no such parameter, no
  ``**kwargs``), also for tools that failed to build for another reason, where
  the loader stops at the first error; a TD110 the loader already reported
  for that parameter is not repeated.

The check is registered by :mod:`tooldeck._lint.rules` (this module
does not import it: the import graph has no cycles). Which JSON types an
annotation takes is :mod:`tooldeck._accepts`, shared with the call path so
that what lint calls an error is what a call refuses.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._accepts import accepted_types, lossless_types
from .._diagnostics import Diagnostic, Severity, SourceLocation

__all__ = ["accepted_types", "check_signatures"]

CODE = "TD411"

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def check_signatures(ctx: Any) -> Iterator[Diagnostic]:
    """A declared parameter that does not fit the handler's signature.

    Catches a declared JSON type the handler's annotation cannot take
    (``type: string`` for ``count: int``, ``type: object`` for a ``list``),
    an error since every call carrying such a value fails; a type it takes
    only by a lossless conversion (``type: integer`` for ``ratio: float``),
    a warning since the model may not send what the handler could use; a
    nullable type or ``default: null`` for a parameter whose annotation is
    not Optional and whose handler default is not ``None``; and a declared
    parameter the handler does not accept (also when the tool has other
    errors, which stop the loader at the first one). The last two are
    warnings.

    Why: the schema promises the model values the handler was not written
    for; calls pass validation and then fail, or misbehave, inside it.

    Bad:  ``- {name: count, type: string}`` for ``def f(count: int)``
    Good: ``- {name: count, type: integer}``
    """
    result = ctx.result
    reported: set[tuple[str, SourceLocation]] | None = None
    signatures: dict[int, tuple[Any, inspect.Signature | None]] = {}
    tables: dict[int, dict[str, tuple[frozenset[str], inspect.Parameter]]] = {}
    for bundle in result.bundles.values():
        doc = result.documents.get(bundle.file)
        data = getattr(doc, "data", None)
        entries = data.get("tools") if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            continue
        built = {bundle.tool_paths[spec.name]: spec for spec in bundle.tools}
        for index, entry in enumerate(entries):
            declared = entry.get("params") if isinstance(entry, Mapping) else None
            if not isinstance(declared, list) or not declared:
                continue
            path: tuple[str | int, ...] = ("tools", index)
            spec = built.get(path)
            if spec is not None:
                handler = spec.handler
            else:
                if reported is None:
                    reported = {(d.code, d.location) for d in result.diagnostics}
                handler = _failed_tool_handler(
                    entry, doc.locate((*path, "handler")), reported, bundle.handlers
                )
            if handler is None:
                continue
            signature = _signature(handler, signatures)
            if signature is None:
                continue
            tool = spec.name if spec is not None else entry.get("name")
            reference = str(entry.get("handler"))
            if spec is None:
                if reported is None:
                    reported = {(d.code, d.location) for d in result.diagnostics}
                yield from _not_accepted(
                    ctx,
                    bundle,
                    doc=doc,
                    path=path,
                    declared=declared,
                    signature=signature,
                    reference=reference,
                    tool=tool,
                    reported=reported,
                )
                continue
            table = tables.get(id(handler))
            if table is None:
                table = tables[id(handler)] = _annotations(signature)
            if table:
                yield from _types(
                    ctx,
                    bundle,
                    path=path,
                    declared=declared,
                    spec=spec,
                    table=table,
                    reference=reference,
                )


def _failed_tool_handler(
    entry: Mapping[str, Any],
    where: SourceLocation,
    reported: set[tuple[str, SourceLocation]],
    resolved: Mapping[str, Callable[..., Any]],
) -> Callable[..., Any] | None:
    """The handler of a tool that did not build, if the loader resolved it (never a new import)."""
    reference = entry.get("handler")
    if not isinstance(reference, str) or ":" not in reference:
        return None
    if reference in resolved:  # what the loader resolved, imported or read from source
        return resolved[reference]
    if any(code.startswith("TD3") and location == where for code, location in reported):
        return None  # not allowed, not importable, not callable: the loader said so
    module = reference.partition(":")[0]
    if module not in sys.modules:
        return None
    from ..manifest._resolve import resolve_handler

    try:  # allowed: just that module, which the loader imported under its own allow-list
        return resolve_handler(reference, (module,))
    except Exception:
        return None


def _not_accepted(
    ctx: Any,
    bundle: Any,
    *,
    doc: Any,
    path: tuple[str | int, ...],
    declared: list[Any],
    signature: inspect.Signature,
    reference: str,
    tool: str | None,
    reported: set[tuple[str, SourceLocation]],
) -> Iterator[Diagnostic]:
    parameters = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    accepted = [n for n, p in parameters.items() if p.kind not in _VARIADIC]
    for index, raw in enumerate(declared):
        name = raw.get("name") if isinstance(raw, Mapping) else None
        if not isinstance(name, str) or name in accepted:
            continue
        where = (*path, "params", index, "name")
        if ("TD110", doc.locate(where)) in reported:
            continue
        listed = f"parameters: {', '.join(accepted)}" if accepted else "no parameters"
        yield ctx.at(
            bundle,
            where,
            CODE,
            f"declared parameter {name!r} is not accepted by handler {reference} "
            f"({listed}); rename it or add **kwargs",
            tool,
        )


def _signature(
    handler: Any, cache: dict[int, tuple[Any, inspect.Signature | None]]
) -> inspect.Signature | None:
    """The handler's signature, looked up once per handler in a run (tools share handlers)."""
    found = cache.get(id(handler))
    if found is None:
        from .._typing import signature_of

        found = cache[id(handler)] = (handler, signature_of(handler))  # keeps the id alive
    return found[1]


def _annotations(
    signature: inspect.Signature,
) -> dict[str, tuple[frozenset[str], inspect.Parameter]]:
    """Parameter name -> (JSON types its annotation takes, the parameter), where known."""
    from .._typing import is_context_annotation

    table = {}
    for name, target in signature.parameters.items():
        annotation = target.annotation
        if target.kind in _VARIADIC or annotation is inspect.Parameter.empty:
            continue
        if is_context_annotation(annotation):
            continue
        takes = accepted_types(annotation)
        if takes is not None:  # None: anything, or an annotation this table does not know
            table[name] = (takes, target)
    return table


def _types(
    ctx: Any,
    bundle: Any,
    *,
    path: tuple[str | int, ...],
    declared: list[Any],
    spec: Any,
    table: dict[str, tuple[frozenset[str], inspect.Parameter]],
    reference: str,
) -> Iterator[Diagnostic]:
    for index, param in enumerate(spec.params):
        known = table.get(param.name)
        if known is None:
            continue
        raw = declared[index] if index < len(declared) else None
        if not isinstance(raw, Mapping) or param.injected is not None:
            continue
        kinds = param.types
        if not kinds:
            continue  # `any`: nothing declared to compare
        takes, target = known
        annotation = target.annotation
        wrong = [k for k in kinds if k != "null" and k not in takes]
        widened = [k for k in kinds if k in lossless_types(annotation)] if not wrong else []
        if (
            not wrong
            and not widened
            and ("null" in takes or not ("null" in kinds or param.absent_default))
        ):
            continue
        here = (*path, "params", index)
        key = "type" if "type" in raw else "schema" if "schema" in raw else None
        type_path = here if key is None else (*here, key)
        shown = _annotation_text(annotation)
        if wrong:  # a call carrying such a value fails: an error, whatever else is said
            yield ctx.at(
                bundle,
                type_path,
                CODE,
                f"parameter {param.name!r} is declared {_json_type(kinds)} but handler "
                f"{reference} annotates it `{shown}`, which takes {_json_type(sorted(takes))}; "
                "change the declared type or the annotation",
                spec.name,
                severity=Severity.ERROR,
            )
        elif widened:
            better = list(dict.fromkeys("number" if k in widened else k for k in kinds))
            yield ctx.at(
                bundle,
                type_path,
                CODE,
                f"parameter {param.name!r} is declared {_json_type(kinds)} but handler "
                f"{reference} annotates it `{shown}`: the model may send only "
                f"{' or '.join(f'{k}s' for k in widened)}, each converted without loss; "
                f"declare {_json_type(better)} unless that narrowing is meant",
                spec.name,
            )
        if "null" in takes:
            continue
        default = target.default
        if "null" in kinds and default is not None:
            yield ctx.at(
                bundle,
                type_path,
                CODE,
                f"parameter {param.name!r} is declared {_json_type(kinds)}, so the model may "
                f"send null, but handler {reference} annotates it `{shown}` (not Optional) "
                "without a default of null; make the annotation Optional or drop null",
                spec.name,
            )
        elif param.absent_default and default is inspect.Parameter.empty:
            yield ctx.at(
                bundle,
                (*here, "default") if "default" in raw else here,
                CODE,
                f"parameter {param.name!r} has default null, which handler {reference} "
                f"receives when it is absent, but annotates it `{shown}` (not Optional) "
                "without a default of its own; make the annotation Optional or give the "
                "handler a default",
                spec.name,
            )


def _json_type(kinds: Any) -> str:
    if isinstance(kinds, str):
        return f"type {json.dumps(kinds)}"
    items = list(kinds)
    return f"type {json.dumps(items[0])}" if len(items) == 1 else f"type {json.dumps(items)}"


def _annotation_text(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return inspect.formatannotation(annotation).replace("typing.", "")
