"""llama-cpp-python's own OpenAI-compatible server as a subprocess, for tests.

    with LlamaServer(gguf, alias="smollm2") as server:
        model = OpenAIChatModel(server.base_url, "smollm2")
        ...

Starting waits until GET /v1/models answers; a server that dies or stays
silent fails the test with the tail of its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
_LOG_TAIL_CHARS = 3000
# Loopback only: never ask an HTTP proxy from the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_env() -> dict[str, str]:
    """The environment minus variables the server would read as settings
    (pydantic-settings matches field names case-insensitively: API_KEY, MODEL...)."""
    from llama_cpp.server.settings import Settings

    fields = {name.lower() for name in Settings.model_fields} | {"config_file"}
    return {key: value for key, value in os.environ.items() if key.lower() not in fields}


class LlamaServer:
    """`python -m llama_cpp.server` serving one GGUF on 127.0.0.1."""

    def __init__(self, gguf: Path, *, alias: str, n_ctx: int = 2048, n_threads: int = 1,
                 extra: tuple[str, ...] = ()):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(gguf), "--model_alias", alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(n_ctx), "--n_threads", str(n_threads), *extra,
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        # A file, not a pipe: a full pipe would block the chatty server.
        self._log = tempfile.TemporaryFile()

    def start(self) -> "LlamaServer":
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=_server_env(),
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {self.process.returncode}:\n{self.log_tail()}")
            if self._answers():
                return self
            time.sleep(0.1)
        self.stop()
        pytest.fail(f"llama_cpp.server did not answer within {STARTUP_TIMEOUT:g} s:\n{self.log_tail()}")

    def _answers(self) -> bool:
        try:
            with _opener.open(self.base_url + "/models", timeout=1.0) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def kill(self) -> None:
        """Die like a crashed server: SIGKILL, no goodbye."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(STOP_TIMEOUT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_TIMEOUT)

    def log_tail(self) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-_LOG_TAIL_CHARS:]

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        self._log.close()
