"""Stopping a test's server at the end of the test."""

from __future__ import annotations

#: seconds a stopping test server gives the streams still open (instead of
#: the product's graceful second) before it cuts them
STREAM_GRACE = 0.1


def stop_server(server) -> None:
    """Stop a RunningServer whose streams no one will finish: gradio_client's
    heartbeat thread reads its stream until the next beat (15 s away) and
    cannot hang up sooner, so each test that used it waited uvicorn's whole
    graceful second, then saw the stream cut all the same."""
    server.server.config.timeout_graceful_shutdown = STREAM_GRACE
    server.stop()
