"""Tracing off costs nothing: no OpenTelemetry SDK is imported and no span is made; on without
the SDK installed, the service refuses to start and says what to install."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Any import of the SDK or an exporter fails in the child process, as on an install without
# the otel extra, and is recorded. (Not the API: FastAPI and the MCP SDK import it themselves.)
BLOCK_SDK = """
import sys
from importlib.abc import MetaPathFinder

blocked = []

class NoSDK(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("opentelemetry.sdk", "opentelemetry.exporter")):
            blocked.append(name)
            raise ImportError(f"{name} is blocked by the test")
        return None

sys.meta_path.insert(0, NoSDK())
"""


def run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter (the tracer provider is process-wide, set once)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_blocked(code: str) -> subprocess.CompletedProcess[str]:
    return run(BLOCK_SDK + textwrap.dedent(code))


def test_off_by_default_imports_no_sdk_and_makes_no_span() -> None:
    done = run_blocked("""
        from service.api.app import create_app
        from service.api.tracing import GraphQLTracing
        from service.core.config import Settings
        from service.observability import tracing

        app = create_app(Settings(_env_file=None, auth_mode="local"))
        with tracing.span("engram.search") as current:
            current.set_attribute("engram.hits", 1)
        assert not tracing.enabled() and type(current).__name__ == "_NoSpan"
        assert not blocked, blocked  # nothing even tried to import the SDK
        from opentelemetry import trace
        assert type(trace.get_tracer_provider()).__name__ == "ProxyTracerProvider"
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_on_without_the_sdk_names_the_extra_to_install() -> None:
    done = run_blocked("""
        from service.core.config import Settings
        from service.core.errors import ConfigurationError
        from service.observability.tracing import start_tracing

        try:
            start_tracing(Settings(_env_file=None, otel_enabled=True))
        except ConfigurationError as e:
            print(e)
    """)
    assert done.returncode == 0, done.stderr
    assert "pip install 'engram[otel]'" in done.stdout


def test_on_exports_spans_where_the_standard_otlp_variables_say() -> None:
    received: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with HTTPServer(("127.0.0.1", 0), Collector) as collector:
        threading.Thread(target=collector.serve_forever, daemon=True).start()
        endpoint = f"http://127.0.0.1:{collector.server_port}"
        env = {
            **os.environ,
            "ENGRAM_OTEL_ENABLED": "true",
            "ENGRAM_OTEL_SERVICE_NAME": "engram-under-test",
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        }
        done = run(
            """
            from service.core.config import Settings
            from service.observability import tracing

            provider = tracing.start_tracing(Settings(_env_file=None))
            with tracing.span("engram.search"):
                pass
            provider.shutdown()  # flushes the batch
        """,
            env=env,
        )
        collector.shutdown()
    assert done.returncode == 0, done.stderr
    [(path, body)] = received
    assert path == "/v1/traces"
    assert b"engram-under-test" in body and b"engram.search" in body
