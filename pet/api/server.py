"""One process, one port: a FastAPI app with the Gradio UI mounted on it."""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from pet import __version__
from pet.api.headerclock import HeaderClockProtocol
from pet.api.lan import LanAccess, prepare_lan
from pet.api.limits import BodyLimit, RateLimit
from pet.app import App
from pet.config import Settings
from pet.errors import ConfigError
from pet.private import UPLOAD_DAYS, private_dir, sweep

log = logging.getLogger(__name__)

#: the folder of the home where Gradio keeps uploads
UPLOADS = "uploads"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def port_is_free(host: str, port: int) -> bool:
    """True when a server could listen on host:port now. Binds as uvicorn
    does (SO_REUSEADDR), so the sockets a stopped pet leaves in TIME_WAIT
    do not keep the port "in use" for a minute after a restart."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def keep_uploads_home(settings: Settings) -> Path:
    """Gradio keeps uploads (voice clips, import files) in the pet's home,
    owner-only, instead of the shared temp folder; old ones are deleted.
    Set before the UI is built: Gradio reads the folder when it mounts."""
    folder = private_dir(settings.home / UPLOADS)
    gone = sweep(folder, UPLOAD_DAYS * 86400)
    if gone:
        log.info("deleted %d uploads older than %d day(s)", gone, UPLOAD_DAYS)
    # a folder Gradio makes there as it mounts (with the process's umask): made first, owner-only
    private_dir(folder / "vibe_edit_history")
    os.environ["GRADIO_TEMP_DIR"] = str(folder)
    return folder


def create_server(app: App) -> FastAPI:
    keep_uploads_home(app.settings)
    from pet.ui.chat import mount_ui  # gradio loads here, not at import time

    api = FastAPI(title="pet", version=__version__)

    @api.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok", "brain": app.brain.model.label, "pet": app.first_pet().persona.id}

    from pet.api.routes import include_api

    include_api(api, app)  # before the UI: its mount at "/" takes every path after it
    return mount_ui(api, app)


@dataclass
class RunningServer:
    server: uvicorn.Server
    thread: threading.Thread | None
    #: LAN mode's password and certificate; None on loopback
    access: LanAccess | None = None

    @property
    def port(self) -> int:
        return self.server.servers[0].sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        """Where this machine's own browser reaches the pet."""
        host = self.server.config.host
        host = "127.0.0.1" if host in (ALL_INTERFACES, "") else host
        scheme = "https" if self.server.config.is_ssl else "http"
        return f"{scheme}://{host}:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=3)
            if self.thread.is_alive():  # streaming clients hold connections open
                self.server.force_exit = True
                self.thread.join(timeout=5)


ALL_INTERFACES = "0.0.0.0"
#: an idle kept-alive connection is closed after this many seconds
KEEP_ALIVE_SECONDS = 5
#: the request line and headers together may not be larger
MAX_HEADER_BYTES = 16 * 1024


def bind_host(settings: Settings) -> str:
    """LAN mode listens on every IPv4 interface unless another host was set."""
    if settings.lan and settings.host == Settings.host:
        return ALL_INTERFACES
    return settings.host


def check_port(host: str, port: int) -> None:
    """Refuse a port another program listens on, with what to do about it.
    Cheap: the command line calls it before the slow parts of start-up."""
    if port and not port_is_free(host, port):
        raise ConfigError(f"port {port} on {host} is in use — stop the other program or pass --port N")


def guard(api: FastAPI, settings: Settings, access: LanAccess | None, host: str) -> None:
    """Put the host check, the limits and, in LAN mode, the password gate in
    front of every route."""
    from pet.api.gate import AuthGate
    from pet.api.headers import SafeHeaders
    from pet.api.hosts import HostCheck, accepted_hosts
    from pet.api.nofetch import NoRemoteFiles

    hosts = (
        accepted_hosts(host)
        if access is None
        else accepted_hosts(host, access.certificate.hostnames, access.certificate.ips)
    )
    # The last added runs first: the headers (on every answer, refusals
    # included), the host check (a rebinding page meets no gate, no login
    # page), the rate limit, the gate (which reads no body of a stranger and
    # tells a stranger nothing else), no fetching of remote files (for
    # anyone), then the body cap.
    api.add_middleware(BodyLimit, max_body=settings.max_body_kb * 1024,
                       max_upload=settings.max_upload_mb * 1024 * 1024)
    api.add_middleware(NoRemoteFiles)
    if access is not None:
        api.add_middleware(AuthGate, auth=access.authenticator)
        api.add_middleware(RateLimit, per_minute=settings.requests_per_minute)
    api.add_middleware(HostCheck, hosts=hosts)
    api.add_middleware(SafeHeaders)


def make_server(app: App, port: int | None = None, *, host: str | None = None,
                access: LanAccess | None = None) -> uvicorn.Server:
    """A server for the app: on loopback as it is, anywhere else only behind
    the password gate and HTTPS (LAN mode)."""
    settings = app.settings
    host = bind_host(settings) if host is None else host
    if settings.lan and access is None:
        access = prepare_lan(settings)
    if not is_loopback(host) and access is None:
        raise ConfigError(
            f"refusing to listen on {host} without authentication: the pet serves only 127.0.0.1 "
            "unless started with --lan (a password and HTTPS)"
        )
    port = settings.port if port is None else port
    check_port(host, port)
    api = create_server(app)
    guard(api, settings, access, host)
    tls: dict[str, Any] = {} if access is None else {"ssl_certfile": str(access.certificate.cert_path),
                                     "ssl_keyfile": str(access.certificate.key_path)}
    config = uvicorn.Config(
        api,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=1,
        access_log=False,
        lifespan="on",
        # Never behind a proxy: the socket's peer is the client, and a
        # forwarded-for header must not pick another address for the limits.
        proxy_headers=False,
        # A client that opens a connection and sends nothing more is let go
        # soon; headers larger than this, or slower than HEADER_SECONDS, are
        # refused. h11 is named because both are its settings (httptools, if
        # installed, would otherwise be picked). A slow body meets
        # BodyLimit's clock.
        http=HeaderClockProtocol,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        **tls,
    )
    return uvicorn.Server(config)


def start_in_thread(app: App, port: int | None = None, *, host: str | None = None) -> RunningServer:
    """Serve in a background thread and wait until it accepts connections."""
    access = prepare_lan(app.settings) if app.settings.lan else None
    server = make_server(app, port, host=host, access=access)
    thread = threading.Thread(target=server.run, name="pet-server", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server stopped while starting; see the log above")
        thread.join(timeout=0.05)
    return RunningServer(server, thread, access)
