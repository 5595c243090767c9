"""Only the pet's own names, and only its own pages, reach it.

DNS rebinding (a page whose name now points at 127.0.0.1) is replayed as a
request with a foreign Host header; a page elsewhere posting to 127.0.0.1 as
a request with a foreign Origin. Each probe goes to the real app served by
uvicorn, the mounted Gradio UI included.
"""

from __future__ import annotations

import ipaddress
import socket
from types import SimpleNamespace

import httpx
import pytest
from lanserver import PASSWORD, lan_pet
from serving import stop_server
from test_auth_routes import PAYLOAD, WEBSOCKET_UPGRADE, concrete, served_routes

from pet.api.hosts import HostCheck, accepted_hosts, split_host_header
from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

EVIL = "rebind.evil.example"
FRAME_RULE = "frame-ancestors 'none'"


# --- the rules ---------------------------------------------------------------------------------


def test_a_host_header_is_read_with_or_without_its_port():
    assert split_host_header("127.0.0.1:7860") == ("127.0.0.1", 7860)
    assert split_host_header("LocalHost") == ("localhost", None)
    assert split_host_header("[::1]:7860") == ("::1", 7860)
    assert split_host_header("[0:0::1]") == ("::1", None)
    assert split_host_header(f"{EVIL}:7860") == (EVIL, 7860)
    for malformed in ("", "::1", "[::1", "[::1]x", "localhost:http", "localhost:99999", "[evil]:1", "a b"):
        assert split_host_header(malformed) is None, malformed


def test_local_mode_accepts_the_loopback_names_and_lan_mode_its_certificates():
    local = accepted_hosts("127.0.0.1")
    assert local.names == {"127.0.0.1", "localhost", "::1"}
    assert local.words() == "127.0.0.1, localhost or [::1]"
    lan = accepted_hosts("0.0.0.0", ["localhost", "pet-box", "pet-box.local"],
                         [ipaddress.ip_address("192.168.1.23"), ipaddress.ip_address("::1")])
    assert lan.names == {"localhost", "pet-box", "pet-box.local", "192.168.1.23", "::1"}
    assert not lan.accepts("127.0.0.2") and not lan.accepts(EVIL)
    assert "127.0.0.2" in accepted_hosts("127.0.0.2").names  # the address it was told to bind


def test_an_origin_is_ours_only_with_our_host_and_port():
    check = HostCheck(lambda *a: None, hosts=accepted_hosts("127.0.0.1"))
    scope = {"server": ("127.0.0.1", 7860)}
    for ours in ("http://127.0.0.1:7860", "http://localhost:7860", "http://[::1]:7860", "HTTP://LOCALHOST:7860"):
        assert check.is_own_origin(ours, scope), ours
    for foreign in (f"http://{EVIL}:7860", "http://127.0.0.1:9999", "http://localhost", "null", "",
                    "file://", "http://127.0.0.1:7860.evil.example", "http://127.0.0.1:bad"):
        assert not check.is_own_origin(foreign, scope), foreign


def test_the_browsers_word_on_where_a_request_comes_from_is_taken():
    check = HostCheck(lambda *a: None, hosts=accepted_hosts("127.0.0.1"))

    def foreign(**headers: str) -> bool:
        raw = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
        return check.is_foreign({"server": ("127.0.0.1", 7860), "headers": raw})

    assert not foreign()  # curl, gradio_client
    assert not foreign(origin="http://127.0.0.1:7860", sec_fetch_site="same-origin")
    # a form a page posts to itself under a no-referrer policy carries the Origin "null"
    assert not foreign(origin="null", sec_fetch_site="same-origin")
    assert foreign(origin="null")  # a sandboxed frame, a file:// page
    assert foreign(origin="null", sec_fetch_site="cross-site")
    assert foreign(origin="https://evil.example", sec_fetch_site="cross-site")
    assert foreign(sec_fetch_site="same-site")  # another port of this host
    assert foreign(origin="http://127.0.0.1:7860", sec_fetch_site="cross-site")


def test_a_websocket_from_another_origin_is_closed_before_the_handshake():
    import asyncio

    reached = []

    async def inner(scope, receive, send):
        reached.append(scope["path"])

    check = HostCheck(inner, hosts=accepted_hosts("127.0.0.1"))

    def handshake(origin: str) -> list[dict]:
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        scope = {"type": "websocket", "path": "/ws", "server": ("127.0.0.1", 7860),
                 "headers": [(b"host", b"127.0.0.1:7860"), (b"origin", origin.encode())]}
        asyncio.run(check(scope, None, send))
        return sent

    assert [m["type"] for m in handshake("https://evil.example")] == ["websocket.close"]
    assert reached == []
    assert handshake("http://127.0.0.1:7860") == [] and reached == ["/ws"]


# --- the served app --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The real app on 127.0.0.1 (local mode) with a brain that must not be called."""
    home = tmp_path_factory.mktemp("hosts-home")
    model = ScriptedModel([])
    app = build(load_settings({"home": str(home), "reflexes": False, "scheduler": "off"}), brain=model)
    server = start_in_thread(app, port=0)
    try:
        yield app, server, model
    finally:
        stop_server(server)
        app.close()


@pytest.fixture
def client(served):
    _, server, _ = served
    with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as c:
        yield c


def foreign_host(server) -> dict[str, str]:
    return {"host": f"{EVIL}:{server.port}"}


def probes(app) -> list[tuple[str, str, dict]]:
    """The issue's probes: (method, path, request arguments)."""
    conversation = app.conversations.create(app.pet.id)
    memory, _ = app.memories.remember(app.pet.id, "the probe's own memory", asserted_by="person", pending=False)
    return [
        ("POST", "/api/memories", {"json": {"content": "the rebinding page got in"}}),
        ("GET", f"/api/debug/{conversation}", {}),
        ("POST", "/api/chat", {"json": {"message": "remember that the rebinding page got in"}}),
        ("DELETE", f"/api/memories/{memory.id}", {}),
        ("GET", "/config", {}),
        ("POST", "/gradio_api/upload", {"files": {"files": ("x.txt", b"rebound", "text/plain")}}),
        ("GET", "/", {"headers": {"accept": "text/html"}}),
    ]


@pytest.mark.slow
def test_a_foreign_host_gets_421_and_the_names_to_use(served, client):
    app, server, model = served
    stored_before = [m.content for m in app.memories.listing(app.pet.id)]
    for method, path, args in probes(app):
        headers = {**args.pop("headers", {}), **foreign_host(server)}
        answer = client.request(method, path, headers=headers, **args)
        assert answer.status_code == 421, (method, path, answer.status_code, answer.text[:200])
        assert answer.headers["content-type"].startswith("text/plain")
        assert "127.0.0.1, localhost or [::1]" in answer.text
    assert model.calls == []
    assert [m.content for m in app.memories.listing(app.pet.id)] == stored_before + ["the probe's own memory"]


@pytest.mark.slow
def test_every_route_refuses_a_foreign_host(served, client):
    """Read from the running app, so a route added later is probed too."""
    _, server, model = served
    routes = served_routes(SimpleNamespace(server=server))
    assert len(routes) > 60
    answered = []
    for probe in routes:
        path = concrete(probe.path)
        if probe.method == "WEBSOCKET":  # closed before the handshake: uvicorn answers 403
            status = client.get(path, headers={**WEBSOCKET_UPGRADE, **foreign_host(server)}).status_code
            refused = status == 403
        else:
            body = PAYLOAD if probe.method not in ("GET", "HEAD") else None
            status = client.request(probe.method, path, json=body, headers=foreign_host(server)).status_code
            refused = status == 421
        if not refused:
            answered.append(f"{probe.method} {path}: {status}")
    assert answered == []
    assert model.calls == []


@pytest.mark.slow
def test_the_pets_own_names_are_answered(served, client):
    _, server, _ = served
    for host in ("127.0.0.1", f"127.0.0.1:{server.port}", f"localhost:{server.port}", "LOCALHOST",
                 f"[::1]:{server.port}"):
        assert client.get("/healthz", headers={"host": host}).status_code == 200, host


@pytest.mark.slow
def test_a_page_elsewhere_cannot_change_anything(served, client):
    app, server, model = served
    before = len(app.memories.listing(app.pet.id))
    memory, _ = app.memories.remember(app.pet.id, "kept from other pages", asserted_by="person", pending=False)
    other_port = f"http://127.0.0.1:{server.port + 1 if server.port < 65535 else 1}"
    for origin in ("https://evil.example", "null", other_port, f"http://{EVIL}:{server.port}"):
        for method, path, args in (
            ("POST", "/api/memories", {"json": {"content": "a page elsewhere got in"}}),
            ("POST", "/api/chat", {"json": {"message": "hi"}}),
            ("DELETE", f"/api/memories/{memory.id}", {}),
            ("POST", "/gradio_api/upload", {"files": {"files": ("x.txt", b"from elsewhere", "text/plain")}}),
            ("POST", "/gradio_api/queue/join", {"json": {"data": ["hi", []], "fn_index": 0,
                                                         "session_hash": "elsewhere"}}),
        ):
            answer = client.request(method, path, headers={"origin": origin}, **args)
            assert answer.status_code == 403, (origin, method, path, answer.status_code)
            assert "another site" in answer.text
    assert model.calls == []
    assert len(app.memories.listing(app.pet.id)) == before + 1  # the one above, not forgotten, none added
    # the pet's own page may
    own = client.post("/api/memories", json={"content": "from the pet's own page"},
                      headers={"origin": server.url})
    assert own.status_code == 201


@pytest.mark.slow
def test_another_origin_is_never_granted_a_read(served, client):
    _, server, _ = served
    for origin in ("https://evil.example", "null", f"http://localhost:{server.port + 1}"):
        for answer in (
            client.get("/config", headers={"origin": origin}),
            client.get("/api/tools", headers={"origin": origin}),
            client.options("/api/memories", headers={"origin": origin, "access-control-request-method": "POST"}),
        ):
            assert "access-control-allow-origin" not in answer.headers, (origin, answer.request.url)
            assert "access-control-allow-credentials" not in answer.headers


@pytest.mark.slow
def test_no_answer_may_be_framed(served, client):
    _, server, _ = served
    answers = [
        client.get("/", headers={"accept": "text/html"}),
        client.get("/config"),
        client.get("/api/tools"),
        client.get("/no/such/page"),
        client.get("/healthz", headers=foreign_host(server)),  # a refusal too
        client.post("/api/memories", json={"content": "x"}, headers={"origin": "https://evil.example"}),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 404, 421, 403]
    for answer in answers:
        assert FRAME_RULE in answer.headers["content-security-policy"], answer.request.url
        assert answer.headers["x-frame-options"] == "DENY"


@pytest.mark.slow
def test_the_page_and_gradio_client_still_work(served, client):
    from serving import gradio_client

    _, server, model = served
    page = client.get("/", headers={"accept": "text/html"})
    assert page.status_code == 200 and "<html" in page.text.lower()
    model.enqueue("Clack! Hello from the pond.")
    gradio = gradio_client(server.url)
    try:
        shown = gradio.predict("hello", api_name="/chat")
    finally:
        gradio.close()
    assert "Hello from the pond" in str(shown)


# --- LAN mode ----------------------------------------------------------------------------------


def _lan_name() -> str | None:
    """A name in the certificate that Gradio does not count as local (so its own CORS would echo)."""
    host = socket.gethostname().strip().lower()
    return host if host and host != "localhost" and host.isascii() else None


@pytest.mark.slow
def test_lan_mode_answers_its_certificates_names_only():
    with lan_pet() as pet, pet.client(auth=("pet", PASSWORD)) as client:
        certificate = pet.server.access.certificate
        port = pet.server.port
        assert client.get("/healthz").status_code == 200  # 127.0.0.1, in the certificate
        refused = client.get("/healthz", headers={"host": f"{EVIL}:{port}"})
        assert refused.status_code == 421
        for name in sorted(certificate.hostnames):
            assert name in refused.text
        name = _lan_name()
        if name is None:
            pytest.skip("this machine has no host name of its own for the rest")
        assert name in certificate.hostnames
        assert client.get("/healthz", headers={"host": f"{name}:{port}"}).status_code == 200
        # Gradio's CORS echoes any Origin when the Host is not a loopback name; nothing passes that on
        answer = client.get("/config", headers={"host": f"{name}:{port}", "origin": "https://evil.example"})
        assert answer.status_code == 200
        assert "access-control-allow-origin" not in answer.headers
        changed = client.post("/api/memories", json={"content": "x"},
                              headers={"host": f"{name}:{port}", "origin": "https://evil.example"})
        assert changed.status_code == 403
