"""The local server's pid files: a crashed server's are told from a live one's and cleared.

Real short-lived processes stand in for the server: `sleep` (another process), a killed and
unreaped `sleep` (a zombie), and a Python sleeper whose command line names Neo4j's entry
point and the data directory's conf folder (what our Neo4j looks like in /proc).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.core.config import Settings
from service.store.local_server import (
    ENTRY_POINT,
    LocalNeo4j,
    PidVerdict,
    ProcessInfo,
    ServerState,
    judge_pid,
    launcher_refusal,
    read_process,
)

CONF = Path("/data/neo4j/conf")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> LocalNeo4j:
    """A LocalNeo4j on a throw-away data dir and ports where nothing answers."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path,
        neo4j_bolt_port=_free_port(),
        neo4j_http_port=_free_port(),
    )
    server = LocalNeo4j(settings)
    server.run_pid_file.parent.mkdir(parents=True)
    return server


def _wait_for_state(pid: int, state: str) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        process = read_process(pid)
        if process is not None and process.state == state:
            return
        time.sleep(0.02)
    raise AssertionError(f"pid {pid} never reached state {state}")


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture
def zombie() -> Iterator[int]:
    """A real zombie: a child killed and not reaped (what `engram serve` used to hold)."""
    proc = subprocess.Popen(["sleep", "60"])
    proc.send_signal(signal.SIGKILL)
    _wait_for_state(proc.pid, "Z")
    yield proc.pid
    proc.wait()


def _fake_neo4j(conf: Path) -> subprocess.Popen[bytes]:
    code = "import time; time.sleep(60)"
    return subprocess.Popen([sys.executable, "-c", code, ENTRY_POINT, f"--config-dir={conf}"])


@pytest.fixture
def our_neo4j(server: LocalNeo4j) -> Iterator[subprocess.Popen[bytes]]:
    proc = _fake_neo4j(server.config_dir)
    yield proc
    proc.kill()
    proc.wait()


def _write_pids(server: LocalNeo4j, pid: int) -> None:
    server.pid_file.write_text(str(pid))
    server.run_pid_file.write_text(str(pid))


# -- judge_pid: the decision alone -------------------------------------------------------------
def _running(*cmdline: str) -> ProcessInfo:
    return ProcessInfo("S", cmdline)


@pytest.mark.parametrize(
    ("process", "verdict"),
    [
        (None, PidVerdict.GONE),
        (ProcessInfo("Z", ()), PidVerdict.ZOMBIE),
        # Dying: its command line is gone before it shows as a zombie (a race a SIGKILL hit).
        (ProcessInfo("R", ()), PidVerdict.ZOMBIE),
        (ProcessInfo("?", ()), PidVerdict.NOT_NEO4J),  # another user's process
        (_running("sleep", "60"), PidVerdict.NOT_NEO4J),
        (_running("java", ENTRY_POINT, "--config-dir=/other/conf"), PidVerdict.NOT_NEO4J),
        (_running("java", "-cp", "x", ENTRY_POINT, f"--config-dir={CONF}"), PidVerdict.OURS),
        (ProcessInfo("?", None), PidVerdict.OURS),  # no /proc: a live pid is trusted
    ],
)
def test_judge_pid(process: ProcessInfo | None, verdict: PidVerdict) -> None:
    assert judge_pid(process, CONF) is verdict


def test_read_process_from_a_fake_proc(tmp_path: Path) -> None:
    (tmp_path / "42").mkdir()
    (tmp_path / "42" / "stat").write_text("42 (java (x) y) Z 1 42 42 0 -1\n")
    (tmp_path / "42" / "cmdline").write_bytes(b"")
    assert read_process(42, tmp_path) == ProcessInfo("Z", ())
    assert read_process(43, tmp_path) is None


# -- real processes ----------------------------------------------------------------------------
def test_real_processes_are_read_as_they_are(sleeper: subprocess.Popen[bytes], zombie: int) -> None:
    live = read_process(sleeper.pid)
    assert live is not None and live.cmdline == ("sleep", "60") and live.state != "Z"
    assert judge_pid(read_process(zombie), CONF) is PidVerdict.ZOMBIE
    reaped = subprocess.Popen(["true"])
    reaped.wait()
    assert judge_pid(read_process(reaped.pid), CONF) is PidVerdict.GONE


def test_no_pid_file_is_stopped(server: LocalNeo4j) -> None:
    assert server.status().state is ServerState.STOPPED


def test_a_zombie_is_a_crash_not_a_running_server(server: LocalNeo4j, zombie: int) -> None:
    _write_pids(server, zombie)
    status = server.status()
    assert status.state is ServerState.CRASHED and status.pid is None
    assert {c.verdict for c in status.stale} == {PidVerdict.ZOMBIE}
    assert status.describe().startswith(f"crashed: pid {zombie} in {server.pid_file}, ")
    assert "is a zombie" in status.describe()


def test_a_reused_pid_is_a_crash_and_stop_leaves_that_process_alone(
    server: LocalNeo4j, sleeper: subprocess.Popen[bytes]
) -> None:
    _write_pids(server, sleeper.pid)
    assert server.status().state is ServerState.CRASHED
    before = server.stop()
    assert {c.verdict for c in before.stale} == {PidVerdict.NOT_NEO4J}
    assert sleeper.poll() is None, "stop() signalled a process that is not our Neo4j"
    assert not server.pid_file.exists() and not server.run_pid_file.exists()


def test_another_servers_pid_is_not_ours(server: LocalNeo4j, tmp_path: Path) -> None:
    other = _fake_neo4j(tmp_path / "elsewhere" / "conf")
    try:
        _write_pids(server, other.pid)
        assert server.status().state is ServerState.CRASHED
    finally:
        other.kill()
        other.wait()


def test_our_neo4j_is_starting_until_bolt_answers(
    server: LocalNeo4j, our_neo4j: subprocess.Popen[bytes]
) -> None:
    server.pid_file.write_text(str(our_neo4j.pid))
    status = server.status()
    assert status.state is ServerState.STARTING and status.pid == our_neo4j.pid


def test_start_clears_stale_pid_files_before_spawning(
    server: LocalNeo4j, zombie: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_pids(server, zombie)
    seen_at_spawn: list[bool] = []

    def spawn() -> int:
        seen_at_spawn.append(server.run_pid_file.exists() or server.pid_file.exists())
        return 0

    monkeypatch.setattr(server, "install", lambda: None)
    monkeypatch.setattr(server, "_write_conf", lambda: None)
    monkeypatch.setattr(server, "_spawn", spawn)
    monkeypatch.setattr(server, "_wait_for_bolt", lambda pid: None)
    status = server.start()
    assert seen_at_spawn == [False], "Neo4j's launcher would see the zombie's pid file"
    assert [c.path for c in status.removed] == [server.pid_file, server.run_pid_file]


def test_start_removes_an_empty_pid_file(
    server: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.run_pid_file.write_text("")  # a power cut between open and write
    monkeypatch.setattr(server, "install", lambda: None)
    monkeypatch.setattr(server, "_write_conf", lambda: None)
    monkeypatch.setattr(server, "_spawn", lambda: 0)
    monkeypatch.setattr(server, "_wait_for_bolt", lambda pid: None)
    server.start()
    assert not server.run_pid_file.exists()


def test_start_leaves_a_live_server_alone(
    server: LocalNeo4j, our_neo4j: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_pids(server, our_neo4j.pid)

    def spawn() -> int:
        raise AssertionError("a second server was spawned")

    monkeypatch.setattr(server, "_spawn", spawn)
    monkeypatch.setattr(server, "_wait_for_bolt", lambda pid: None)
    assert server.start().removed == ()
    assert server.pid_file.exists()


REFUSAL = "java ... --console-mode\nNeo4j is already running (pid:16743).\n"


def test_the_launchers_refusal_names_the_other_server() -> None:
    message = launcher_refusal(REFUSAL, Path("/data/neo4j"), lambda pid: PidVerdict.OURS)
    assert "another Neo4j (pid 16743) already uses this data directory" in message
    assert "configuration" not in message


def test_the_launchers_refusal_over_a_zombie_says_it_crashed() -> None:
    message = launcher_refusal(REFUSAL, Path("/data/neo4j"), lambda pid: PidVerdict.ZOMBIE)
    assert "pid 16743 of a crashed server (a zombie" in message
    assert "/data/neo4j/run/neo4j.pid" in message
