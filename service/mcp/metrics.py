"""Per-tool metrics for the MCP server: an SDK extension around every `tools/call`."""

from __future__ import annotations

import re
import time
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp_types import CallToolRequestParams, CallToolResult, TextContent

from service.observability.metrics import ErrorKind, Metrics

_KINDS = {kind.value: kind for kind in ErrorKind}
_SDK_PREFIX = re.compile(r"Error executing tool [^:]*(: )?")
# A name the server does not have: the client chose it, so it is not a label value.
UNKNOWN_TOOL = "unknown"


class ToolMetrics(Extension):
    """engram_mcp_tool_* per tool, and engram_errors_total{surface="mcp"} for tool errors."""

    identifier = "dev.engram/metrics"

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        start = time.perf_counter()
        result = await call_next(ctx)
        tool = UNKNOWN_TOOL if _is_unknown_tool(result) else params.name
        self.metrics.mcp_calls.labels(tool).inc()
        self.metrics.mcp_seconds.labels(tool).observe(time.perf_counter() - start)
        if isinstance(result, CallToolResult) and result.is_error:
            self.metrics.count_error("mcp", tool_error_kind(result))
        return result


def tool_error_kind(result: CallToolResult) -> ErrorKind:
    """A tool error's kind from its text. Engram's tools name it as GraphQL does
    (tools.tool_errors) after the SDK's "Error executing tool <name>: "; the SDK reports a
    crash as that prefix alone, and refuses unknown names and bad arguments in its own words.
    """
    text = _text(result)
    prefixed = _SDK_PREFIX.match(text)
    if prefixed and not prefixed.group(1):
        return ErrorKind.UNEXPECTED
    rest = text[prefixed.end() :] if prefixed else text
    return _KINDS.get(rest.split(": ", 1)[0], ErrorKind.INVALID_REQUEST)


def _is_unknown_tool(result: HandlerResult) -> bool:
    """The SDK's refusal of an unregistered name (ToolManager: "Unknown tool: <name>")."""
    return (
        isinstance(result, CallToolResult)
        and result.is_error
        and _text(result).startswith("Unknown tool:")
    )


def _text(result: CallToolResult) -> str:
    first = result.content[0] if result.content else None
    return first.text if isinstance(first, TextContent) else ""
