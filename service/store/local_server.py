"""The local Neo4j Community server: jars from Maven Central, run as a background process.

Layout: the jars live in ``Settings.neo4j_home/lib`` (fetched by ``neo4j/server/pom.xml``);
each data folder holds its own ``conf/neo4j.conf`` (rendered from ``neo4j/server/neo4j.conf``),
``data/``, ``logs/``, ``run/`` and ``neo4j.pid``, so a test server runs beside a user's with
other ports.

Two pid files name the server: ours (``neo4j.pid``, written at spawn) and the JVM's own
(``run/neo4j.pid``), which Neo4j's launcher reads to refuse a second start. After a crash
both stay behind; ``judge_pid`` tells a live server from a gone, zombie or reused pid, and
``start`` removes the stale files first (docs/operations.md).
"""

from __future__ import annotations

import enum
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from service.core.config import NEO4J_VERSION, Settings
from service.core.errors import LocalServerError
from service.core.resources import NEO4J_SERVER_DIR

# The checkout's neo4j/server/, package data (service.neo4j_server) that a wheel carries.
POM = NEO4J_SERVER_DIR / "pom.xml"
CONF_TEMPLATE = NEO4J_SERVER_DIR / "neo4j.conf"
# Neo4j Browser's guide of Engram's queries and its style (GRASS); the API serves this folder
# at BROWSER_ASSETS_ROUTE (service/api/app.py), docs/browser.md says how Browser loads them.
BROWSER_ASSETS = NEO4J_SERVER_DIR / "browser"
BROWSER_ASSETS_ROUTE = "/neo4j-browser"
BROWSER_GUIDE = "engram-guide.html"
BROWSER_STYLE = "engram.grass"
_MULTI_VALUED = {"server.jvm.additional"}
# The JVM's main class, as Neo4j's launcher prints it in `console --dry-run`.
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
_ALREADY_RUNNING = re.compile(r"already running \(pid:\s*(\d+)\)")


class PidVerdict(enum.Enum):
    """What the process a pid file names is now."""

    OURS = "this data directory's Neo4j"
    GONE = "gone"
    ZOMBIE = "a zombie (killed, not yet reaped by its parent)"
    NOT_NEO4J = "now another process (the pid was reused)"


class ServerState(enum.Enum):
    RUNNING = "running"
    STARTING = "starting"  # our Neo4j process lives; Bolt does not answer (yet)
    STOPPED = "stopped"
    CRASHED = "crashed"  # stopped, but a pid file names a process that is no longer our server


@dataclass(frozen=True)
class ProcessInfo:
    """One process as /proc shows it."""

    state: str  # the one-letter state in /proc/<pid>/stat; "Z" is a zombie
    cmdline: tuple[str, ...] | None  # None: this system shows no command lines (no /proc)


@dataclass(frozen=True)
class PidCheck:
    """One pid file and what its process is now."""

    path: Path
    pid: int
    verdict: PidVerdict


def describe_stale(checks: Sequence[PidCheck]) -> str:
    """What a crashed server's pid files name: one phrase per pid."""
    by_pid: dict[int, list[Path]] = {}
    for check in checks:
        by_pid.setdefault(check.pid, []).append(check.path)
    verdict = {check.pid: check.verdict for check in checks}
    return "; ".join(
        f"pid {pid} in {', '.join(map(str, paths))} is {verdict[pid].value}"
        for pid, paths in by_pid.items()
    )


@dataclass(frozen=True)
class ServerStatus:
    state: ServerState
    pid: int | None  # our server's, when it lives
    bolt_uri: str
    browser_url: str
    conf_current: bool = True  # False: running on a neo4j.conf this version would write otherwise
    stale: tuple[PidCheck, ...] = ()  # pid files a crashed server left (state CRASHED)
    removed: tuple[PidCheck, ...] = ()  # stale pid files start() removed before starting

    @property
    def running(self) -> bool:
        return self.state is ServerState.RUNNING

    def describe(self) -> str:
        """The state in a user's words, as `engram neo4j status` prints it."""
        if self.state is ServerState.RUNNING:
            return f"running (pid {self.pid})"
        if self.state is ServerState.STARTING:
            return f"starting (pid {self.pid}; Bolt does not answer yet)"
        if self.state is ServerState.CRASHED:
            left = describe_stale(self.stale)
            return f"crashed: {left}; `engram neo4j start` removes the stale pid file"
        return "stopped"


def judge_pid(process: ProcessInfo | None, config_dir: Path) -> PidVerdict:
    """Whether a pid file's process is the Neo4j of this config dir, or what it is instead."""
    if process is None:
        return PidVerdict.GONE
    if process.state in ("Z", "X", "x"):
        return PidVerdict.ZOMBIE
    if process.cmdline == () and process.state != "?":
        # Exiting: the kernel frees a dying process's command line before it shows as a zombie.
        return PidVerdict.ZOMBIE
    if process.cmdline is None:  # no /proc to tell: trust a live pid, as Neo4j's launcher does
        return PidVerdict.OURS
    if ENTRY_POINT in process.cmdline and f"--config-dir={config_dir}" in process.cmdline:
        return PidVerdict.OURS
    return PidVerdict.NOT_NEO4J


def server_state(checks: Sequence[PidCheck], bolt_open: bool) -> ServerState:
    """The server's state from its pid files' verdicts and whether Bolt answers."""
    if any(check.verdict is PidVerdict.OURS for check in checks):
        return ServerState.RUNNING if bolt_open else ServerState.STARTING
    return ServerState.CRASHED if checks else ServerState.STOPPED


def launcher_refusal(output: str, data_dir: Path, verdict_of: Callable[[int], PidVerdict]) -> str:
    """Why Neo4j's launcher refused to start, in the user's terms."""
    match = _ALREADY_RUNNING.search(output)
    if match is None:
        conf = data_dir / "conf" / "neo4j.conf"
        return f"Neo4j's launcher refused to start on {conf}:\n{output}"
    pid = int(match[1])
    verdict = verdict_of(pid)
    if verdict in (PidVerdict.GONE, PidVerdict.ZOMBIE):
        return (
            f"Neo4j's launcher still sees pid {pid} of a crashed server ({verdict.value}) in "
            f"{data_dir / 'run' / 'neo4j.pid'}; delete that file and start again"
        )
    return (
        f"another Neo4j (pid {pid}) already uses this data directory ({data_dir}); stop it "
        f"(`kill {pid}`) or point ENGRAM_DATA_DIR elsewhere"
    )


class LocalNeo4j:
    """Install, start, stop and inspect one local Neo4j server."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.data_dir = settings.data_dir / "neo4j"
        self.home = settings.neo4j_home
        self.pid_file = self.data_dir / "neo4j.pid"
        self.run_pid_file = self.data_dir / "run" / "neo4j.pid"  # the JVM writes this one
        self.config_dir = self.data_dir / "conf"
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
        # Maven writes target/ beside the pom: a copy in a scratch folder keeps it out of the
        # installed package (site-packages may be read-only).
        with tempfile.TemporaryDirectory(prefix="engram-neo4j-pom-") as scratch:
            pom = Path(shutil.copy(POM, scratch))
            cmd = ["mvn", "-q", "-B", "-f", str(pom), "package", f"-Dneo4j.home={self.home}"]
            result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0 or not self.installed():
            tail = (result.stdout + result.stderr)[-2000:]
            raise LocalServerError(f"fetching the Neo4j jars failed ({shlex.join(cmd)}):\n{tail}")

    # -- lifecycle -------------------------------------------------------------------------
    def check_pid_files(self) -> list[PidCheck]:
        """Judge each pid file there is: ours, then the JVM's."""
        checks = []
        for path in (self.pid_file, self.run_pid_file):
            pid = _read_pid(path)
            if pid is not None:
                checks.append(PidCheck(path, pid, self._verdict(pid)))
        return checks

    def status(self) -> ServerStatus:
        checks = self.check_pid_files()
        pid = next((c.pid for c in checks if c.verdict is PidVerdict.OURS), None)
        state = server_state(checks, pid is not None and self._bolt_open())
        return ServerStatus(
            state=state,
            pid=pid,
            bolt_uri=self._settings.bolt_uri,
            browser_url=browser_link(self._settings),
            conf_current=state is not ServerState.RUNNING or self.conf_is_current(),
            stale=tuple(checks) if state is ServerState.CRASHED else (),
        )

    def start(self) -> ServerStatus:
        """Start the server in the background (if not running) and wait until Bolt answers.

        Pid files a crashed server left are removed first; the status returned lists them.
        """
        before = self.status()
        pid = before.pid
        if pid is None:  # any pid file left is stale, or unreadable (cut short by a power loss)
            self._remove_pid_files()
            self.install()
            self._write_conf()
            pid = self._spawn()
        self._wait_for_bolt(pid)
        return replace(self.status(), removed=before.stale)

    def stop(self, timeout_s: float = 60.0) -> ServerStatus:
        """SIGTERM the server and wait for a clean shutdown (SIGKILL only after timeout_s).

        Returns the status before stopping; stale pid files are removed either way.
        """
        before = self.status()
        if before.pid is not None:
            os.kill(before.pid, signal.SIGTERM)
            if not self._wait_for_exit(before.pid, timeout_s):
                os.kill(before.pid, signal.SIGKILL)
                self._wait_for_exit(before.pid, 10.0)
        self._remove_pid_files()
        return before

    def _remove_pid_files(self) -> None:
        for path in (self.pid_file, self.run_pid_file):
            path.unlink(missing_ok=True)

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
            "java",
            "-cp",
            f"{self.home}/lib/*",
            f"-Dbasedir={self.home}",
            "org.neo4j.server.startup.Neo4jCommand",
            "console",
            "--dry-run",
        ]
        result = subprocess.run(launcher, capture_output=True, text=True, env=env, check=False)
        lines = [ln for ln in result.stdout.splitlines() if "CommunityEntryPoint" in ln]
        if result.returncode != 0 or not lines:
            output = result.stdout + result.stderr
            raise LocalServerError(launcher_refusal(output, self.data_dir, self._verdict))
        return shlex.split(lines[-1])

    def _spawn(self) -> int:
        """Run the server detached and return its pid.

        A shell starts it in the background and exits at once (a double fork), so the server's
        parent is init or the nearest subreaper, which reaps it when it dies. Whoever called
        start(), `engram serve` for one, never holds a killed server as a zombie whose pid
        still answers. The new session keeps the terminal's Ctrl-C away from it.
        """
        command = self._server_command()
        detach = 'log=$1; shift; "$@" >>"$log" 2>&1 </dev/null & echo $!'
        result = subprocess.run(
            ["/bin/sh", "-c", detach, "sh", str(self.console_log), *command],
            capture_output=True,
            text=True,
            check=False,
            start_new_session=True,
        )
        try:
            pid = int(result.stdout.strip())
        except ValueError as e:
            raise LocalServerError(f"could not start Neo4j: {result.stderr.strip()}") from e
        self.pid_file.write_text(str(pid), encoding="utf-8")
        return pid

    def _verdict(self, pid: int) -> PidVerdict:
        return judge_pid(read_process(pid), self.config_dir)

    def _exited(self, pid: int) -> bool:
        # Not "not OURS": between the shell's fork and exec the pid is still a shell.
        return self._verdict(pid) in (PidVerdict.GONE, PidVerdict.ZOMBIE)

    def _wait_for_exit(self, pid: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._exited(pid):
                return True
            time.sleep(0.2)
        return False

    def _wait_for_bolt(self, pid: int) -> None:
        deadline = time.monotonic() + self._settings.neo4j_start_timeout_s
        while time.monotonic() < deadline:
            if self._bolt_open():
                return
            if self._exited(pid):
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


def read_process(pid: int, proc: Path = Path("/proc")) -> ProcessInfo | None:
    """The process `pid` as /proc shows it; None when there is no such process."""
    if not proc.is_dir():  # no /proc (macOS): a signal 0 tells alive from gone, no more
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return ProcessInfo(state="?", cmdline=None)
    try:
        stat = (proc / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
        cmdline = (proc / str(pid) / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return None
    except PermissionError:  # another user's process: not our server
        return ProcessInfo(state="?", cmdline=())
    state = stat.rsplit(")", 1)[1].split()[0]  # the command name in (...) may hold spaces
    return ProcessInfo(
        state, tuple(arg.decode(errors="replace") for arg in cmdline.split(b"\0") if arg)
    )


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
