"""The local Neo4j Community server: jars from Maven Central, run as a background process.

Layout: the jars live in ``Settings.neo4j_home/lib`` (fetched by ``neo4j/pom.xml``); each data
folder holds its own ``conf/neo4j.conf`` (rendered from ``neo4j/neo4j.conf``), ``data/``,
``logs/``, ``run/`` and ``neo4j.pid``, so a test server runs beside a user's with other ports.
"""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from service.config import NEO4J_VERSION, REPO_ROOT, Settings
from service.errors import LocalServerError

POM = REPO_ROOT / "neo4j" / "pom.xml"
CONF_TEMPLATE = REPO_ROOT / "neo4j" / "neo4j.conf"
# Neo4j Browser's guide of Engram's queries and its style (GRASS); the API serves this folder
# at BROWSER_ASSETS_ROUTE (service/api/app.py), docs/browser.md says how Browser loads them.
BROWSER_ASSETS = REPO_ROOT / "neo4j" / "browser"
BROWSER_ASSETS_ROUTE = "/neo4j-browser"
BROWSER_GUIDE = "engram-guide.html"
BROWSER_STYLE = "engram.grass"
_MULTI_VALUED = {"server.jvm.additional"}


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str
    conf_current: bool = True  # False: running on a neo4j.conf this version would write otherwise


class LocalNeo4j:
    """Install, start, stop and inspect one local Neo4j server."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.data_dir = settings.data_dir / "neo4j"
        self.home = settings.neo4j_home
        self.pid_file = self.data_dir / "neo4j.pid"
        self.console_log = self.data_dir / "logs" / "console.log"

    # -- install ---------------------------------------------------------------------------
    def installed(self) -> bool:
        return (self.home / "lib" / f"neo4j-{NEO4J_VERSION}.jar").is_file()

    def install(self) -> None:
        """Lay the Neo4j jars into neo4j_home/lib with Maven (~/.m2 caches them)."""
        if self.installed():
            return
        if not POM.is_file():
            raise LocalServerError(f"{POM} is missing; install the Neo4j jars into {self.home}/lib")
        cmd = ["mvn", "-q", "-B", "-f", str(POM), "package", f"-Dneo4j.home={self.home}"]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0 or not self.installed():
            tail = (result.stdout + result.stderr)[-2000:]
            raise LocalServerError(f"fetching the Neo4j jars failed ({shlex.join(cmd)}):\n{tail}")

    # -- lifecycle -------------------------------------------------------------------------
    def status(self) -> ServerStatus:
        pid = self._live_pid()
        running = pid is not None and self._bolt_open()
        return ServerStatus(
            running=running,
            pid=pid,
            bolt_uri=self._settings.bolt_uri,
            browser_url=browser_link(self._settings),
            conf_current=not running or self.conf_is_current(),
        )

    def start(self) -> ServerStatus:
        """Start the server in the background (if not running) and wait until Bolt answers."""
        if self._live_pid() is None:
            self.install()
            self._write_conf()
            self._spawn()
        self._wait_for_bolt()
        return self.status()

    def stop(self, timeout_s: float = 60.0) -> None:
        """SIGTERM the server and wait for a clean shutdown (SIGKILL only after timeout_s)."""
        pid = self._live_pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)

    # -- internals -------------------------------------------------------------------------
    def _conf_overrides(self) -> dict[str, str]:
        s, d = self._settings, self.data_dir
        return {
            "server.directories.data": str(d / "data"),
            "server.directories.logs": str(d / "logs"),
            "server.directories.run": str(d / "run"),
            "server.directories.transaction.logs.root": str(d / "data" / "transactions"),
            "server.bolt.listen_address": f":{s.neo4j_bolt_port}",
            "server.http.listen_address": f":{s.neo4j_http_port}",
            "server.memory.heap.initial_size": s.neo4j_heap,
            "server.memory.heap.max_size": s.neo4j_heap,
            "server.memory.pagecache.size": s.neo4j_pagecache,
            # Loopback-only development server; a user's own Neo4j keeps its auth.
            "dbms.security.auth_enabled": "false",
            # Browser runs these (each with a leading ':') once it has connected, and fetches
            # guides and styles only from the hosts listed (Neo4j's default list plus the API's).
            "browser.post_connect_cmd": "; ".join(browser_post_connect_commands(s)),
            "browser.remote_content_hostname_whitelist": f"guides.neo4j.com,{_api_host(s)}",
        }

    def conf_text(self) -> str:
        """This server's neo4j.conf: the template with its per-instance keys."""
        return render_conf(CONF_TEMPLATE.read_text(encoding="utf-8"), self._conf_overrides())

    def conf_is_current(self) -> bool:
        """Whether the written neo4j.conf is this one (a server reads it only at start)."""
        try:
            written = (self.data_dir / "conf" / "neo4j.conf").read_text(encoding="utf-8")
        except OSError:
            return False
        return written == self.conf_text()

    def _write_conf(self) -> None:
        conf_dir = self.data_dir / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        (self.data_dir / "logs").mkdir(parents=True, exist_ok=True)
        (conf_dir / "neo4j.conf").write_text(self.conf_text(), encoding="utf-8")

    def _server_command(self) -> list[str]:
        """Ask Neo4j's own launcher for the JVM command line it would run (flags, heap)."""
        env = {
            **os.environ,
            "NEO4J_HOME": str(self.home),
            "NEO4J_CONF": str(self.data_dir / "conf"),
        }
        launcher = [
            "java", "-cp", f"{self.home}/lib/*", f"-Dbasedir={self.home}",
            "org.neo4j.server.startup.Neo4jCommand", "console", "--dry-run",
        ]  # fmt: skip
        result = subprocess.run(launcher, capture_output=True, text=True, env=env, check=False)
        lines = [ln for ln in result.stdout.splitlines() if "CommunityEntryPoint" in ln]
        if result.returncode != 0 or not lines:
            raise LocalServerError(
                f"Neo4j rejected its configuration:\n{result.stdout}{result.stderr}"
            )
        return shlex.split(lines[-1])

    def _spawn(self) -> None:
        command = self._server_command()
        with self.console_log.open("ab") as log:
            proc = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # survives the CLI that started it
            )
        self.pid_file.write_text(str(proc.pid), encoding="utf-8")

    def _wait_for_bolt(self) -> None:
        deadline = time.monotonic() + self._settings.neo4j_start_timeout_s
        while time.monotonic() < deadline:
            if self._bolt_open():
                return
            if self._live_pid() is None:
                raise LocalServerError(f"Neo4j exited during start-up:\n{self._log_tail()}")
            time.sleep(0.25)
        raise LocalServerError(
            f"Neo4j did not answer on Bolt within {self._settings.neo4j_start_timeout_s:.0f}s:\n"
            f"{self._log_tail()}"
        )

    def _bolt_open(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self._settings.neo4j_bolt_port), 0.5):
                return True
        except OSError:
            return False

    def _live_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None
        return pid if _alive(pid) else None

    def _log_tail(self, lines: int = 30) -> str:
        for log in (self.data_dir / "logs" / "neo4j.log", self.console_log):
            if log.is_file():
                return "\n".join(
                    log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
                )
        return "(no Neo4j log was written)"


def browser_link(settings: Settings) -> str:
    """Neo4j Browser's URL that connects to the local server at once (no auth form)."""
    # `dbms` names the server to connect to; `preselectAuthMethod=NO_AUTH` makes the connect
    # frame connect without credentials (Browser 5.24: ConnectionFormController). No `cmd`
    # here: a command in the URL turns off browser.post_connect_cmd, which plays the guide.
    base = f"http://localhost:{settings.neo4j_http_port}/browser/"
    return f"{base}?dbms=bolt://localhost:{settings.neo4j_bolt_port}&preselectAuthMethod=NO_AUTH"


def browser_asset_url(settings: Settings, name: str) -> str:
    """Where the API serves one of BROWSER_ASSETS, as Browser (on this machine) reaches it."""
    return f"http://{_api_host(settings)}:{settings.api_port}{BROWSER_ASSETS_ROUTE}/{name}"


def browser_post_connect_commands(settings: Settings) -> list[str]:
    """Apply Engram's style, then open its guide: what Browser runs after connecting."""
    return [
        f"style {browser_asset_url(settings, BROWSER_STYLE)}",
        f"play {browser_asset_url(settings, BROWSER_GUIDE)}",
    ]


def _api_host(settings: Settings) -> str:
    """The API's host as a browser on this machine names it: loopback or wildcard = localhost."""
    loopback_or_any = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "::"}
    return "localhost" if settings.api_host in loopback_or_any else settings.api_host


def render_conf(template: str, overrides: dict[str, str]) -> str:
    """Replace keys of the template by overrides; multi-valued keys may repeat."""
    kept: list[str] = []
    for line in template.splitlines():
        key = line.split("=", 1)[0].strip()
        if key in overrides and key not in _MULTI_VALUED and not line.lstrip().startswith("#"):
            continue
        kept.append(line)
    kept.append("# --- per-instance settings written by `engram neo4j start` ---")
    kept.extend(f"{k}={v}" for k, v in overrides.items())
    return "\n".join(kept) + "\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child (killed but not reaped) is not alive for our purposes.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
