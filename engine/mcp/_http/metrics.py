"""``/metrics``: calls, durations, reloads and attached servers in the Prometheus text format.

The one module that imports ``prometheus_client`` (the library and the other
commands never load it). Every app gets its own ``CollectorRegistry``, never
the process-wide one: tests build many apps in one process, and an
application embedding the app keeps its own metrics apart.

Label values come only from what the server defines, never from what a client
sends: the tool label is a registered tool name, or ``(unknown)`` for every
name no tool has, so a client calling made-up names cannot grow the series
without bound; the outcome label is ``ok`` or an error kind, which tooldeck
and the tool authors name (anything that does not look like one is ``other``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client import generate_latest as _render
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.routing import Route

if TYPE_CHECKING:
    from starlette.requests import Request

    from ...manifest._events import ReloadEvent
    from .._serving import CallRecord, RegistryServer

__all__ = ["UNKNOWN_TOOL", "ServeMetrics"]

UNKNOWN_TOOL = "(unknown)"
"""The tool label of calls to a name no tool has."""

_KIND = re.compile(r"[a-z][a-z0-9_]{0,47}")
_KEPT_SERIES = 4096
"""(tool, outcome) pairs whose metric children are kept at hand; past it, forgotten at once."""
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
"""Seconds: tool calls run from microseconds (a local function) to minutes (a remote API)."""


class ServeMetrics:
    """The metrics of one served app: observers for calls and reloads, and a route."""

    def __init__(self, servers: Mapping[str, RegistryServer]) -> None:
        self.servers = servers
        self.registry = CollectorRegistry(auto_describe=False)
        self.calls = Counter(
            "tooldeck_tool_calls",
            "Tool calls answered, by tool and outcome (ok, or the error kind).",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self.durations = Histogram(
            "tooldeck_tool_call_duration_seconds",
            "Seconds each tool call took to answer.",
            ["tool"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.reloads = Counter(
            "tooldeck_reloads",
            "Reloads of the manifests (--reload; the first load included), by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        for outcome in ("ok", "failed"):  # both series exist from the start, at 0
            self.reloads.labels(outcome=outcome)
        self.registry.register(_StateCollector(servers))
        self._series: dict[tuple[str, str], tuple[Any, Any]] = {}

    def attach(self) -> None:
        """Observe every server's calls and reloads."""
        for served in self.servers.values():
            served.call_observers.append(self.observe_call)
            served.reload_observers.append(self.observe_reload)

    def observe_call(self, record: CallRecord) -> None:
        tool = record.tool if record.tool is not None else UNKNOWN_TOOL
        outcome = record.outcome
        series = self._series.get((tool, outcome))
        if series is None:
            series = self._series_of(tool, outcome)
        series[0].inc()
        series[1].observe(record.duration)

    def _series_of(self, tool: str, outcome: str) -> tuple[Any, Any]:
        """The counter and histogram children of one (tool, outcome), kept for the next call
        (``labels()`` checks and looks up its labels each time: several µs on every call)."""
        label = outcome if _KIND.fullmatch(outcome) else "other"
        series = (
            self.calls.labels(tool=tool, outcome=label),
            self.durations.labels(tool=tool),
        )
        if len(self._series) >= _KEPT_SERIES:  # tools come and go with reloads: stay bounded
            self._series.clear()
        self._series[(tool, outcome)] = series
        return series

    def observe_reload(self, event: ReloadEvent) -> None:
        self.reloads.labels(outcome="ok" if event.ok else "failed").inc()

    def render(self) -> bytes:
        """The text exposition of every metric, as ``/metrics`` serves it."""
        return _render(self.registry)

    def route(self) -> Route:
        async def metrics(request: Request) -> Response:
            return Response(self.render(), media_type=CONTENT_TYPE_LATEST)

        return Route("/metrics", endpoint=metrics, methods=["GET"])


class _StateCollector(Collector):
    """Gauges read at scrape time from memory: attached servers up, the manifests ok."""

    def __init__(self, servers: Mapping[str, RegistryServer]) -> None:
        self.servers = servers

    def describe(self) -> Iterator[Metric]:
        yield from self._families()

    def collect(self) -> Iterator[Metric]:
        up, manifests = self._families()
        seen: set[str] = set()
        for served in self.servers.values():
            health = getattr(served.attachment, "health", None)
            for name, server in (health() if health is not None else {}).items():
                if name not in seen:
                    seen.add(name)
                    up.add_metric([name], 0.0 if server.error is not None else 1.0)
            status = served.registry.reload_status
            if status is not None and not manifests.samples:
                manifests.add_metric([], 1.0 if status.ok else 0.0)
        yield up
        if manifests.samples:
            yield manifests

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, GaugeMetricFamily]:
        return (
            GaugeMetricFamily(
                "tooldeck_attached_server_up",
                "1 while an attached MCP server answers (its last connection and listing "
                "succeeded, or it is not used yet), else 0.",
                labels=["server"],
            ),
            GaugeMetricFamily(
                "tooldeck_manifests_ok",
                "1 when the last load or reload of the manifests had no error, 0 when files "
                "failed (a reload keeps their last good version).",
            ),
        )
