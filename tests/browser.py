"""Headless Chromium for the UI tests: the app served on a loopback port, and a page driven over
the DevTools protocol on a pipe (`--remote-debugging-pipe`: no WebSocket library needed)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Headless, as root in a container; virtual time lets the scripts run before the DOM is dumped.
HEADLESS = ("--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000")


@asynccontextmanager
async def serve(app: FastAPI) -> AsyncIterator[str]:
    """The app on a free loopback port, in this event loop; yields its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "uvicorn stopped before it started"
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving


class BrowserPage:
    """One tab of a headless Chromium: navigate, evaluate JavaScript, wait, screenshot."""

    def __init__(self, reader: asyncio.StreamReader, write_fd: int) -> None:
        self.reader = reader
        self.write_fd = write_fd
        self.session: str | None = None
        self.last_id = 0

    @classmethod
    @asynccontextmanager
    async def open(cls, width: int = 1400, height: int = 900) -> AsyncIterator[BrowserPage]:
        assert CHROMIUM is not None
        to_browser, from_browser = os.pipe(), os.pipe()

        def pipes_as_3_and_4() -> None:  # where --remote-debugging-pipe reads and writes
            os.dup2(to_browser[0], 3)
            os.dup2(from_browser[1], 4)

        with tempfile.TemporaryDirectory(
            prefix="engram-chromium-", ignore_cleanup_errors=True
        ) as profile:
            browser = await asyncio.create_subprocess_exec(
                CHROMIUM,
                *HEADLESS[:3],
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
                preexec_fn=pipes_as_3_and_4,
                pass_fds=(3, 4),
                start_new_session=True,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            os.close(to_browser[0])
            os.close(from_browser[1])
            reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(from_browser[0], "rb")
            )
            page = cls(reader, to_browser[1])
            try:
                await page._attach(width, height)
                yield page
            finally:
                # Its own process group: the renderer and zygote processes go with it.
                os.killpg(browser.pid, signal.SIGKILL)
                await browser.wait()
                transport.close()
                os.close(to_browser[1])

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (events in between are skipped)."""
        self.last_id += 1
        message: dict[str, Any] = {"id": self.last_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            raw = await asyncio.wait_for(self.reader.readuntil(b"\0"), timeout=60)
            answer = json.loads(raw[:-1])
            if answer.get("id") == self.last_id:
                assert "error" not in answer, (method, answer["error"])
                result: dict[str, Any] = answer["result"]
                return result

    async def _attach(self, width: int, height: int) -> None:
        target = await self.send("Target.createTarget", url="about:blank")
        attached = await self.send(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True
        )
        self.session = attached["sessionId"]
        await self.send("Page.enable")
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)

    async def eval(self, expression: str) -> Any:
        """What the expression (awaited when a promise) evaluates to, as JSON."""
        answer = await self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 30) -> Any:
        """Poll until the expression is truthy; its value (true for an element)."""
        deadline = asyncio.get_running_loop().time() + timeout
        probe = f"(() => {{ const v = ({expression}); return v instanceof Node || v }})()"
        while True:
            value = await self.eval(probe)
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for: {expression}")
            await asyncio.sleep(0.1)

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))
