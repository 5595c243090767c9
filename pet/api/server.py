"""One process, one port: a FastAPI app with the Gradio UI mounted on it."""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from pet import __version__
from pet.app import App
from pet.errors import ConfigError

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def create_server(app: App) -> FastAPI:
    from pet.ui.chat import mount_ui  # gradio loads here, not at import time

    api = FastAPI(title="pet", version=__version__)

    @api.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok", "brain": app.brain.model.label, "pet": app.persona.id}

    return mount_ui(api, app)


@dataclass
class RunningServer:
    server: uvicorn.Server
    thread: threading.Thread | None

    @property
    def url(self) -> str:
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=3)
            if self.thread.is_alive():  # streaming clients hold connections open
                self.server.force_exit = True
                self.thread.join(timeout=5)


def make_server(app: App, port: int | None = None) -> uvicorn.Server:
    host = app.settings.host
    if not is_loopback(host):
        # Authentication arrives with LAN mode; until then nothing but loopback.
        raise ConfigError(
            f"refusing to listen on {host}: without authentication the pet only serves 127.0.0.1"
        )
    port = app.settings.port if port is None else port
    if port and not port_is_free(host, port):
        raise ConfigError(f"port {port} on {host} is in use — stop the other program or pass --port N")
    config = uvicorn.Config(
        create_server(app),
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=1,
        access_log=False,
        lifespan="on",
    )
    return uvicorn.Server(config)


def start_in_thread(app: App, port: int | None = None) -> RunningServer:
    """Serve in a background thread and wait until it accepts connections."""
    server = make_server(app, port)
    thread = threading.Thread(target=server.run, name="pet-server", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server stopped while starting; see the log above")
        thread.join(timeout=0.05)
    return RunningServer(server, thread)
