"""The soak's own processes: a local Neo4j on soak-only ports and data, and the `engram serve`
processes against it; each can be SIGKILLed and started again."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from service.core.config import Settings
from service.store.local_server import LocalNeo4j

SOAK_DATA = Path.home() / ".cache" / "engram" / "soak-data"
# Not the tests' 7697/7484 nor the LoCoMo bench's 7698/7485.
BOLT_PORT, HTTP_PORT = 7699, 7486
SERVE_START_TIMEOUT_S = 180.0


def soak_settings(
    data_dir: Path = SOAK_DATA, bolt_port: int = BOLT_PORT, http_port: int = HTTP_PORT
) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=data_dir,
        neo4j_bolt_port=bolt_port,
        neo4j_http_port=http_port,
        neo4j_heap="1g",
        neo4j_pagecache="512m",
    )


class SoakNeo4j:
    """The soak's Neo4j, started from an empty database (the folder is the soak's alone)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server = LocalNeo4j(settings)

    def start_fresh(self) -> None:
        self.server.stop()
        shutil.rmtree(self.server.data_dir / "data", ignore_errors=True)
        self.server.start()

    def kill(self) -> int:
        """SIGKILL the server, as the OOM killer would; returns its pid."""
        pid = self.server.status().pid
        if pid is None:
            raise RuntimeError("the soak's Neo4j is not running")
        os.kill(pid, signal.SIGKILL)
        return pid

    def start(self) -> None:
        """Start it again after a kill: the team's start() clears the stale pid files."""
        self.server.start()

    def stop(self) -> None:
        self.server.stop()


@dataclass
class ServeProcess:
    """One `engram serve` (local auth) against the soak's Neo4j; its log goes to a file (a
    pipe nobody reads fills up and blocks the server)."""

    index: int
    port: int
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return Path(tempfile.gettempdir()) / f"engram-soak-serve-{self.port}.log"

    def start(self) -> None:
        """Spawn it and wait until /healthz answers 200."""
        engram = str(Path(sys.executable).parent / "engram")
        with self.log.open("ab") as stderr:
            self.process = subprocess.Popen(
                [engram, "serve"], env=self.env, stdout=subprocess.DEVNULL, stderr=stderr
            )
        deadline = time.monotonic() + SERVE_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.healthy():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.5)
        raise RuntimeError(f"engram serve on port {self.port} did not come up; log: {self.log}")

    def last_error(self) -> str:
        """The last line of its log that names an error, for the report."""
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        errors = [ln for ln in lines if "Error" in ln or "ERROR" in ln]
        return (errors or lines or ["(empty log)"])[-1].strip()[:300]

    def healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def serve_processes(settings: Settings, ports: list[int], lease_s: float) -> list[ServeProcess]:
    """Not started yet: one per port, each its own process on the one Neo4j."""
    env = {
        **os.environ,
        "ENGRAM_AUTH_MODE": "local",
        "ENGRAM_NEO4J_URI": settings.bolt_uri,
        "ENGRAM_PENDING_LEASE_S": str(lease_s),
    }
    return [
        ServeProcess(i, port, {**env, "ENGRAM_API_PORT": str(port)}) for i, port in enumerate(ports)
    ]
