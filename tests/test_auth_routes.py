"""In LAN mode no route gives data or runs anything without the password.

The routes are read from the running app itself (ours, the /api routes and
everything Gradio mounts), so a route added later is probed too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx
import pytest
from lanserver import PASSWORD, LanPet, lan_pet
from starlette.routing import Mount, Route, WebSocketRoute

from pet.api.gate import NOT_SIGNED_IN, WRONG_PASSWORD, AuthGate, login_page
from pet.brain.scripted import ScriptedModel

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Probe:
    method: str
    path: str  # a template: /gradio_api/file={path_or_url:path}


def _routes(routes: list, prefix: str) -> list[Probe]:
    found: list[Probe] = []
    for route in routes:
        if hasattr(route, "effective_route_contexts"):  # a FastAPI include_router branch
            for context in route.effective_route_contexts():
                inner = context.starlette_route or context.original_route
                found += _routes([inner], prefix)
        elif isinstance(route, Mount):
            inner = getattr(route.app, "routes", None)
            if inner is None:  # static files or another plain ASGI app
                found.append(Probe("GET", prefix + route.path + "/probe"))
            else:
                found += _routes(inner, prefix + route.path)
        elif isinstance(route, WebSocketRoute):
            found.append(Probe("WEBSOCKET", prefix + route.path))
        elif isinstance(route, Route):  # APIRoute included
            found += [Probe(method, prefix + route.path) for method in sorted(route.methods or ["GET"])]
        else:
            raise AssertionError(f"a route of an unknown kind: {route!r} — teach this walker to read it")
    return found


def served_routes(pet: LanPet) -> list[Probe]:
    """Every route the running server answers, read from its FastAPI app."""
    return sorted(set(_routes(pet.server.server.config.app.routes, "")), key=lambda p: (p.path, p.method))


def concrete(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "probe", template)


# A body that would do something at most routes if it were let through:
# start a chat turn, save a memory, set a reminder.
PAYLOAD = {
    "data": ["remember that the probe got in", []],
    "fn_index": 0,
    "session_hash": "probe",
    "message": "remember that the probe got in",
    "content": "the probe got in",
    "text": "probe",
    "when": "2030-01-01T09:00:00",
    "pet": 1,
}


# Gradio's own /login and /logout are answered by the gate instead: the
# sign-in page, a refused password, or back to the sign-in page.
GATE_PATHS = {"/login", "/login/", "/logout"}


def _gate_own_answer(answer: httpx.Response) -> bool:
    if answer.status_code == 303:
        return answer.headers["location"] == "/login" and not answer.content
    if answer.status_code == 401:
        return answer.json() == {"detail": WRONG_PASSWORD}
    return answer.status_code == 200 and answer.text == login_page("/")


WEBSOCKET_UPGRADE = {
    "connection": "Upgrade",
    "upgrade": "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
}


def leaks(pet: LanPet, probes: list[Probe]) -> list[str]:
    """The probes that got anything but the gate's refusal."""
    found = []
    with pet.client() as client:
        for probe in probes:
            path = concrete(probe.path)
            if probe.method == "WEBSOCKET":
                answer = client.get(path, headers=WEBSOCKET_UPGRADE)
                if answer.status_code == 101:
                    found.append(f"WEBSOCKET {path}: handshake accepted")
                continue
            answer = client.request(
                probe.method,
                path,
                json=PAYLOAD if probe.method not in ("GET", "HEAD") else None,
                headers={"accept": "application/json"},
            )
            if path in GATE_PATHS:
                refused = _gate_own_answer(answer)
            else:
                refused = answer.status_code == 401 and (
                    probe.method == "HEAD" or answer.json() == {"detail": NOT_SIGNED_IN}
                )
            if not refused:
                found.append(f"{probe.method} {path}: {answer.status_code} {answer.text[:80]!r}")
    return found


@pytest.fixture(scope="module")
def pet(tmp_path_factory):
    with lan_pet(ScriptedModel([]), home=tmp_path_factory.mktemp("lan-home")) as running:
        yield running


def test_the_walk_finds_our_routes_and_gradios(pet):
    paths = {probe.path for probe in served_routes(pet)}
    # ours, Gradio's page and config, its queue, upload and file routes
    for expected in (
        "/healthz",
        "/",
        "/config",
        "/gradio_api/queue/join",
        "/gradio_api/upload",
        "/gradio_api/file={path_or_url:path}",
        "/gradio_api/info",
    ):
        assert expected in paths
    # every route FastAPI documents (the /api routes among them) is walked too
    assert set(pet.server.server.config.app.openapi()["paths"]) <= paths


def test_no_route_answers_without_the_password(pet):
    probes = served_routes(pet)
    assert len(probes) > 60  # Gradio alone serves dozens
    assert leaks(pet, probes) == []
    # and nothing ran: no turn, no memory, no model call
    assert pet.count("messages") == 0 and pet.count("memories") == 0 and pet.count("reminders") == 0
    assert pet.model.calls == []


def test_an_unknown_path_is_refused_too_not_just_missing(pet):
    with pet.client() as client:
        answer = client.get("/no/such/route", headers={"accept": "application/json"})
    assert answer.status_code == 401


def test_the_probe_catches_a_route_left_open(pet, monkeypatch):
    """The check above fails when one route slips past the gate."""
    original = AuthGate._identify

    async def one_open(self, scope):
        return "ok" if scope["path"] == "/healthz" else await original(self, scope)

    monkeypatch.setattr(AuthGate, "_identify", one_open)
    found = leaks(pet, [p for p in served_routes(pet) if p.path in ("/healthz", "/config")])
    assert len(found) == 1 and found[0].startswith("GET /healthz: 200")


def test_gradio_itself_refuses_in_lan_mode_should_the_gate_be_missing(tmp_path):
    """A second lock: in LAN mode Gradio asks who signed in, and only the gate says."""
    from starlette.testclient import TestClient

    from pet.api.server import create_server
    from pet.app import build
    from pet.config import load_settings

    app = build(load_settings({"lan": True, "scheduler": "off"}), brain=ScriptedModel([]))
    try:
        with TestClient(create_server(app)) as ungated:
            assert ungated.get("/config").status_code == 401
            assert ungated.post("/gradio_api/queue/join", json=PAYLOAD).status_code == 401
    finally:
        app.close()


def test_a_browser_is_sent_to_the_sign_in_page_without_any_data(pet):
    with pet.client() as client:
        answer = client.get("/?view=api", headers={"accept": "text/html"})
        assert answer.status_code == 303
        assert answer.headers["location"] == "/login?next=%2F%3Fview%3Dapi"
        assert answer.content == b""
        page = client.get(answer.headers["location"])
    assert page.status_code == 200 and 'type="password"' in page.text
    assert pet.app.persona.display_name("en") not in page.text  # the public page names no pet


def test_signing_in_gives_a_secure_session_cookie_that_opens_the_ui(pet):
    with pet.client() as client:
        wrong = client.post(
            "/login", data={"password": "guess", "next": "/"}, headers={"accept": "text/html"}
        )
        assert wrong.status_code == 401 and "Wrong password" in wrong.text
        assert "set-cookie" not in wrong.headers

        right = client.post(
            "/login", data={"password": PASSWORD, "next": "/?x=1"}, headers={"accept": "text/html"}
        )
        assert right.status_code == 303 and right.headers["location"] == "/?x=1"
        cookie = right.headers["set-cookie"]
        assert cookie.startswith("__Host-pet-")
        for attribute in ("Secure", "HttpOnly", "SameSite=Lax", "Path=/"):
            assert attribute in cookie
        assert "小钳" in client.get("/config").text  # the cookie opens Gradio's config

        client.get("/logout")
        assert client.get("/config", headers={"accept": "application/json"}).status_code == 401


def test_a_session_cookie_stops_working_after_sign_out_even_if_replayed(pet):
    with pet.client() as client:
        client.post("/login", data={"password": PASSWORD})
        name, token = next(iter(client.cookies.items()))
        client.get("/logout")
    with pet.client(cookies={name: token}) as replay:
        assert replay.get("/config", headers={"accept": "application/json"}).status_code == 401


def test_a_signed_out_cookie_stays_refused_after_a_restart(tmp_path):
    def session(pet: LanPet) -> str:
        with pet.client() as client:
            client.post("/login", data={"password": PASSWORD})
            return next(iter(client.cookies.values()))

    with lan_pet(home=tmp_path / "home") as pet:
        ended, kept = session(pet), session(pet)
        with pet.client(cookies={f"__Host-pet-{pet.server.port}": ended}) as client:
            client.get("/logout")
    with lan_pet(home=tmp_path / "home") as again:
        # the cookie's name carries the port, and the new server may have another one
        name = f"__Host-pet-{again.server.port}"
        for token, status in ((ended, 401), (kept, 200)):
            with again.client(cookies={name: token}) as replay:
                assert replay.get("/config", headers={"accept": "application/json"}).status_code == status


def test_a_forged_cookie_is_refused(pet):
    with pet.client() as client:
        client.post("/login", data={"password": PASSWORD})
        name, token = next(iter(client.cookies.items()))
    issued, nonce, mac = token.split(".")
    forged = f"{int(issued) + 86400}.{nonce}.{mac}"
    with pet.client(cookies={name: forged}) as client:
        assert client.get("/healthz", headers={"accept": "application/json"}).status_code == 401


def test_api_clients_use_basic_or_bearer(pet):
    with pet.client(auth=("pet", PASSWORD)) as basic:
        assert basic.get("/healthz").json()["status"] == "ok"
    with pet.client(headers={"authorization": f"Bearer {PASSWORD}"}) as bearer:
        assert bearer.get("/healthz").json()["status"] == "ok"
    with pet.client(auth=("pet", "nope")) as wrong:
        refused = wrong.get("/healthz")
    assert refused.status_code == 401 and "Wrong password" in refused.json()["detail"]


@pytest.mark.parametrize("target", ["//evil.example/x", "/\t/evil.example/x", "/\n/evil.example/x"])
def test_sign_in_never_sends_the_browser_to_another_site(pet, target):
    with pet.client() as client:
        answer = client.post(
            "/login", data={"password": PASSWORD, "next": target}, headers={"accept": "text/html"}
        )
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_gradio_client_signs_in_and_chats(tmp_path):
    from serving import gradio_client

    with lan_pet(ScriptedModel(["Snap! Over HTTPS."])) as pet:
        with pytest.raises(Exception, match="(?i)credentials|login"):
            gradio_client(pet.url, ssl_verify=False)
        client = gradio_client(pet.url, auth=("pet", PASSWORD), ssl_verify=False)
        final = client.predict("hello over the LAN", api_name="/chat")
        assert final[-1]["content"] == "Snap! Over HTTPS."
        assert pet.count("messages") == 2


def test_too_many_wrong_passwords_lock_the_address_out(tmp_path):
    with lan_pet() as pet, pet.client() as client:
        for _ in range(10):
            assert client.post("/login", data={"password": "wrong"}).status_code == 401
        locked = client.post("/login", data={"password": PASSWORD})
        assert locked.status_code == 429
        assert "Too many wrong passwords" in locked.json()["detail"]
        assert int(locked.headers["retry-after"]) > 0
        # the same address cannot try through HTTP Basic either
        assert client.get("/healthz", auth=("pet", PASSWORD)).status_code == 429


def test_parallel_guesses_cannot_outrun_the_count(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with lan_pet() as pet, pet.client() as client:
        with ThreadPoolExecutor(max_workers=15) as pool:
            codes = list(
                pool.map(
                    lambda i: client.post("/login", data={"password": f"guess {i}"}).status_code, range(30)
                )
            )
    assert codes.count(401) == 10 and codes.count(429) == 20


def test_http_is_not_served_in_lan_mode(tmp_path):
    with lan_pet() as pet:
        plain = pet.url.replace("https://", "http://")
        with pytest.raises(httpx.HTTPError):
            httpx.get(plain + "/healthz", timeout=10)
