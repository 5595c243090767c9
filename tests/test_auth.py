"""The LAN password: kept only hashed, owner-only; sessions signed and ending."""

from __future__ import annotations

import base64
import json
import stat

import pytest

from pet.api.auth import (
    ALL_CLIENTS,
    AUTH_FILE,
    SESSION_SECONDS,
    Authenticator,
    PasswordRecord,
    generate_password,
    password_problem,
    setup_password,
)
from pet.api.gate import password_from_header, safe_next
from pet.api.limits import SlidingWindow
from pet.config import load_settings
from pet.errors import ConfigError


def test_a_generated_password_is_shown_once_and_only_its_hash_is_kept(pet_home):
    first = setup_password(load_settings())
    assert first.generated and first.source == "generated now"
    path = pet_home / AUTH_FILE
    text = path.read_text()
    assert first.generated not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(text)
    assert data["kdf"] == "scrypt" and len(base64.b64decode(data["salt"])) == 16

    again = setup_password(load_settings())
    assert again.generated is None  # not shown a second time, not replaced
    assert again.record == first.record
    assert again.record.matches(first.generated)


def test_generated_passwords_are_long_and_phone_friendly():
    words = {generate_password() for _ in range(50)}
    assert len(words) == 50
    for word in words:
        assert len(word) == 19 and word.count("-") == 3
        assert not set(word) & set("0O1lI")


def test_a_configured_password_is_stored_hashed_and_a_new_one_replaces_it(pet_home, monkeypatch):
    monkeypatch.setenv("PET_PASSWORD", "first secret")
    one = setup_password(load_settings())
    assert one.generated is None and "PET_PASSWORD" in one.source
    assert "first secret" not in (pet_home / AUTH_FILE).read_text()
    session = Authenticator(one.record).new_session()

    assert setup_password(load_settings()).record == one.record  # same password: kept, sessions live

    monkeypatch.setenv("PET_PASSWORD", "second secret")
    two = setup_password(load_settings())
    assert two.record.matches("second secret") and not two.record.matches("first secret")
    assert not Authenticator(two.record).check_session(session)  # a new password ends old sessions


def test_a_loose_auth_file_is_made_owner_only(pet_home):
    setup_password(load_settings())
    path = pet_home / AUTH_FILE
    path.chmod(0o644)
    setup_password(load_settings())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_broken_auth_file_says_how_to_recover(pet_home):
    pet_home.mkdir(parents=True)
    (pet_home / AUTH_FILE).write_text("{not json")
    with pytest.raises(ConfigError, match="delete it to get a new password"):
        setup_password(load_settings())


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_sessions_expire_and_end():
    clock = Clock()
    auth = Authenticator(PasswordRecord.new("pw"), clock)
    token = auth.new_session()
    assert auth.check_session(token)
    clock.now += SESSION_SECONDS - 1
    assert auth.check_session(token)
    clock.now += 2
    assert not auth.check_session(token)

    other = auth.new_session()
    auth.end_session(other)
    assert not auth.check_session(other)


def test_a_session_from_another_home_or_tampered_is_refused():
    auth = Authenticator(PasswordRecord.new("pw"))
    stranger = Authenticator(PasswordRecord.new("pw"))  # same password, another secret
    token = auth.new_session()
    assert not stranger.check_session(token)
    assert not auth.check_session(token[:-1] + ("A" if token[-1] != "A" else "B"))
    assert not auth.check_session("garbage")
    # a cookie is read as latin-1: other text is refused, not an error (a 500 for a stranger)
    issued, nonce, _mac = token.split(".")
    assert not auth.check_session(f"{issued}.{nonce}.\xe9")
    assert not auth.check_session(f"²{issued}.{nonce}.{_mac}")
    auth.end_session(f"{issued}.{nonce}.\xe9")
    assert auth.check_session(token)


def test_passwords_are_checked_and_a_right_one_is_remembered_cheaply():
    auth = Authenticator(PasswordRecord.new("right one"))
    assert not auth.is_cached("right one")
    assert not auth.check_password("wrong one") and not auth.check_password("")
    assert auth.check_password("right one")
    assert auth.is_cached("right one") and not auth.is_cached("wrong one")


def test_the_password_is_read_from_basic_or_bearer():
    basic = base64.b64encode(b"pet:s3cret:with:colons").decode()
    assert password_from_header(f"Basic {basic}") == "s3cret:with:colons"
    assert password_from_header("Bearer s3cret") == "s3cret"
    assert password_from_header("Basic !!!") is None
    assert password_from_header("Digest abc") is None


@pytest.mark.parametrize(
    "target, expected",
    [
        ("/", "/"),
        ("/?view=api", "/?view=api"),
        ("//evil.example", "/"),
        ("https://evil.example", "/"),
        ("/\\evil.example", "/"),
        ("", "/"),
        # a browser drops tabs and newlines from a Location: "//evil.example"
        ("/\t/evil.example", "/"),
        ("/\n/evil.example", "/"),
        ("/\r/evil.example", "/"),
        ("/ /evil.example", "/"),
    ],
)
def test_after_sign_in_only_paths_on_this_server(target, expected):
    assert safe_next(target) == expected


def test_the_password_never_shows_in_the_settings_repr(monkeypatch):
    monkeypatch.setenv("PET_PASSWORD", "hunter2-secret")
    settings = load_settings()
    assert settings.password == "hunter2-secret"
    assert "hunter2-secret" not in repr(settings)


def test_a_signed_out_session_stays_out_after_a_restart(pet_home, monkeypatch):
    monkeypatch.setenv("PET_PASSWORD", "first secret")
    path = pet_home / AUTH_FILE
    before = Authenticator(setup_password(load_settings()).record, store=path)
    ended, kept = before.new_session(), before.new_session()
    before.end_session(ended)
    assert ended not in path.read_text()  # only a digest of it is kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    after = Authenticator(setup_password(load_settings()).record, store=path)  # a restart, same home
    assert not after.check_session(ended)
    assert after.check_session(kept)


def test_revocations_are_dropped_once_their_session_would_have_expired(pet_home):
    clock = Clock()
    path = pet_home / AUTH_FILE
    record = setup_password(load_settings()).record
    auth = Authenticator(record, clock, store=path)
    old = auth.new_session()
    auth.end_session(old)
    clock.now += SESSION_SECONDS + 1
    auth.end_session(auth.new_session())
    assert len(json.loads(path.read_text())["revoked_sessions"]) == 1


@pytest.mark.parametrize(
    "password, complaint",
    [
        ("1", "too short (1 characters)"),
        ("hunter2", "too short (7 characters)"),
        ("aaaaaaaaaaaaaaaa", "one character repeated"),
        ("12345678", "only 8 digits"),
        ("12345678901", "only 11 digits"),
        ("123456789012", None),
        ("correct horse 42", None),
        ("pässwörd", None),
    ],
)
def test_a_weak_password_setting_is_refused_with_what_is_wanted(pet_home, monkeypatch, password, complaint):
    problem = password_problem(password)
    if complaint is None:
        assert problem is None
        return
    assert complaint in problem and "at least 8 characters" in problem
    monkeypatch.setenv("PET_PASSWORD", password)
    with pytest.raises(ConfigError, match="PET_PASSWORD"):
        setup_password(load_settings())
    assert not (pet_home / AUTH_FILE).exists()


def test_a_generated_password_is_strong_enough():
    assert all(password_problem(generate_password()) is None for _ in range(50))


class Gate:
    """The gate as plain ASGI in front of an app that answers 200, with the
    client address set per call as uvicorn sets it from the socket."""

    def __init__(self, auth: Authenticator):
        from pet.api.gate import AuthGate

        async def inner(scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})

        self.gate = AuthGate(inner, auth=auth)

    def call(self, client: str, password: str) -> tuple[int, dict[str, str]]:
        import asyncio

        sent: list[dict] = []

        async def receive():
            return {"type": "http.request", "body": b""}

        async def send(message):
            sent.append(message)

        scope = {
            "type": "http",
            "method": "GET",
            "path": "/healthz",
            "client": (client, 40000),
            "server": ("127.0.0.1", 7777),
            "headers": [(b"authorization", f"Bearer {password}".encode())],
        }
        asyncio.run(self.gate(scope, receive, send))
        headers = {k.decode(): v.decode() for k, v in sent[0].get("headers", [])}
        return sent[0]["status"], headers


def test_many_addresses_share_one_budget_of_guesses():
    from pet.api.auth import MAX_GUESSES_IN_ALL

    clock = Clock()
    auth = Authenticator(PasswordRecord.new("the right one"))
    auth.guesses = SlidingWindow(MAX_GUESSES_IN_ALL, 600, clock)
    gate = Gate(auth)
    addresses = [f"192.168.1.{n}" for n in range(10, 40)]  # 30 addresses, 9 guesses each
    statuses = [gate.call(address, f"guess {i}")[0] for i in range(9) for address in addresses]
    first_refusal = statuses.index(429)
    assert first_refusal == MAX_GUESSES_IN_ALL < 270
    assert set(statuses[first_refusal:]) == {429}

    # everyone waits, a new address with the right password too, and is told how long
    status, headers = gate.call("192.168.1.200", "the right one")
    assert status == 429 and 0 < int(headers["retry-after"]) <= 601
    clock.now += 601  # the window moves on
    assert gate.call("192.168.1.200", "the right one")[0] == 200


def test_the_shared_budget_counts_right_passwords_as_nothing():
    from pet.api.auth import MAX_GUESSES_IN_ALL

    auth = Authenticator(PasswordRecord.new("the right one"))
    gate = Gate(auth)
    for n in range(MAX_GUESSES_IN_ALL + 2):  # the right password, first checked from many addresses
        auth._known.clear()  # each a slow check, not the remembered one
        assert gate.call(f"10.0.0.{n}", "the right one")[0] == 200
    assert auth.guesses.count(ALL_CLIENTS) == 0


def test_parallel_guesses_from_many_addresses_cannot_outrun_the_shared_count():
    from concurrent.futures import ThreadPoolExecutor

    from pet.api.auth import MAX_GUESSES_IN_ALL

    gate = Gate(Authenticator(PasswordRecord.new("the right one")))
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda n: gate.call(f"10.1.{n // 200}.{n % 200}", f"guess {n}")[0], range(60)))
    assert statuses.count(401) == MAX_GUESSES_IN_ALL and statuses.count(429) == 60 - MAX_GUESSES_IN_ALL


def test_wrong_passwords_and_lock_outs_are_logged_without_the_password(caplog):
    from pet.api.auth import MAX_ATTEMPTS

    gate = Gate(Authenticator(PasswordRecord.new("the right one")))
    with caplog.at_level("WARNING", logger="pet.api.gate"):
        for i in range(MAX_ATTEMPTS):
            gate.call("192.168.1.66", f"hunter{i}-guess")
        gate.call("192.168.1.66", "one more guess")  # refused unchecked
    lines = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "wrong password from 192.168.1.66 (1 of 10" in lines[0]
    assert any(f"({MAX_ATTEMPTS} of {MAX_ATTEMPTS}" in line for line in lines)
    assert any("192.168.1.66 is locked out after 10 wrong passwords" in line for line in lines)
    assert "guess" not in caplog.text and "hunter" not in caplog.text
