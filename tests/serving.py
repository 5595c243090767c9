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


#: seconds a test's gradio_client waits for the server's answers; httpx's own
#: default (5 s) was too short for the first /info on a busy 2-core machine
#: (a CI run saw a ReadTimeout there in test_auth_routes)
CLIENT_TIMEOUT = 120.0


def gradio_client(url: str, **kwargs):
    """A gradio_client.Client for a test server, patient with a busy machine."""
    from gradio_client import Client

    kwargs.setdefault("verbose", False)
    kwargs.setdefault("httpx_kwargs", {"timeout": CLIENT_TIMEOUT})
    return Client(url, **kwargs)
