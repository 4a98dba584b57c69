"""OpenTelemetry tracing, off unless ENGRAM_OTEL_ENABLED=true (docs/metrics.md, "Tracing").

On, it installs the SDK's tracer provider with an OTLP/HTTP exporter (configured by the
standard OTEL_EXPORTER_OTLP_* variables) as the process's provider, so the spans FastAPI and the
MCP SDK already make (HTTP requests, `tools/call <tool>`) are exported beside Engram's own:
one per GraphQL operation and per stage of a search and of an add. Off, this module imports
nothing of OpenTelemetry and `span` is a no-op; the SDK is the optional extra `engram[otel]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Protocol

from service.core.config import Settings
from service.core.errors import ConfigurationError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import StatusCode, Tracer
    from opentelemetry.util.types import AttributeValue

INSTRUMENTATION_NAME = "engram"
# The tracer every span here comes from; None while tracing is off.
_tracer: Tracer | None = None


class SpanHandle(Protocol):
    """What code inside a span may do to it: the subset of OpenTelemetry's Span used here."""

    def set_attribute(self, key: str, value: AttributeValue) -> None: ...

    def update_name(self, name: str) -> None: ...

    def set_status(self, status: StatusCode, description: str | None = None) -> None: ...


class _NoSpan:
    def set_attribute(self, key: str, value: AttributeValue) -> None:
        pass

    def update_name(self, name: str) -> None:
        pass

    def set_status(self, status: StatusCode, description: str | None = None) -> None:
        pass


_OFF = nullcontext(_NoSpan())  # reusable: it does nothing on entry or exit


def enabled() -> bool:
    return _tracer is not None


def span(
    name: str, attributes: Mapping[str, AttributeValue] | None = None
) -> AbstractContextManager[SpanHandle]:
    """A span around the block, child of the current one; nothing at all while tracing is off.
    An exception leaving the block is recorded on it and marks it failed."""
    if _tracer is None:
        return _OFF
    return _tracer.start_as_current_span(name, attributes=attributes)


def mark_failed(current: SpanHandle, error_type: str) -> None:
    """Mark the span failed, with error.type as OpenTelemetry's conventions name it."""
    if _tracer is None:
        return
    from opentelemetry.trace import StatusCode

    current.set_attribute("error.type", error_type)
    current.set_status(StatusCode.ERROR)


def start_tracing(settings: Settings) -> TracerProvider | None:
    """Install the exporting tracer provider when settings ask for it; the caller shuts it
    down (flushing what is buffered) when the process ends. None when tracing is off."""
    if not settings.otel_enabled:
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as e:
        raise ConfigurationError(
            "ENGRAM_OTEL_ENABLED=true needs the OpenTelemetry SDK: pip install 'engram[otel]'"
        ) from e
    # Resource.create also reads OTEL_RESOURCE_ATTRIBUTES; the service name is Engram's setting.
    resource = Resource.create({"service.name": settings.otel_service_name})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    use_provider(provider)
    return provider


def use_provider(provider: TracerProvider | None) -> None:
    """Trace into ``provider`` (also made the process's global provider, which FastAPI and the
    MCP SDK use), or stop tracing with None. Tests pass a provider with an in-memory exporter."""
    global _tracer
    if provider is None:
        _tracer = None
        return
    from opentelemetry import trace

    if trace.get_tracer_provider() is not provider:
        trace.set_tracer_provider(provider)  # OpenTelemetry keeps the first a process sets
    _tracer = provider.get_tracer(INSTRUMENTATION_NAME)
