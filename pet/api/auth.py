"""The LAN password and sessions.

The password is kept only as a salted scrypt hash in `<home>/auth.json`
(mode 0600), beside a random secret that signs session cookies. A session
token is `<issued>.<nonce>.<mac>`; its key mixes the secret with the password
hash, so a new password ends every old session. A signed-out session is kept
in the same file (as a digest, until it would have expired anyway), so a
restart does not bring it back.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pet.api.limits import SlidingWindow
from pet.config import Settings
from pet.errors import ConfigError

AUTH_FILE = "auth.json"
#: the user name API clients send with HTTP Basic; any name is accepted, only the password counts
USER = "pet"
#: scrypt cost: about 16 MB and a few tens of milliseconds per check
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SESSION_SECONDS = 30 * 24 * 3600
#: password attempts allowed per client address before it must wait
MAX_ATTEMPTS = 10
#: password checks allowed from all addresses together in the same window: many
#: addresses (a botnet, or one machine taking many LAN addresses) share this budget
MAX_GUESSES_IN_ALL = 30
#: scrypt checks running at once: each takes 16 MB, and guesses must not eat the machine
MAX_PARALLEL_CHECKS = 2
ATTEMPT_WINDOW_SECONDS = 600.0
#: the weakest password the pet accepts from its settings
MIN_PASSWORD_LENGTH = 8
MIN_DIGITS_LENGTH = 12
#: the key of the window that counts every address's guesses together
ALL_CLIENTS = "*all*"
# No 0/O, 1/l/i: the generated password is typed on a phone keyboard.
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def generate_password() -> str:
    """Four groups of four: about 79 bits, easy to type on a phone."""
    return "-".join("".join(secrets.choice(_ALPHABET) for _ in range(4)) for _ in range(4))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def hash_password(
    password: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P
) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32
    )


@dataclass(frozen=True)
class PasswordRecord:
    """What auth.json holds: the hash, its parameters and the session secret."""

    salt: bytes
    digest: bytes
    secret: bytes
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P

    @classmethod
    def new(cls, password: str) -> PasswordRecord:
        salt = secrets.token_bytes(16)
        return cls(salt=salt, digest=hash_password(password, salt), secret=secrets.token_bytes(32))

    def matches(self, password: str) -> bool:
        return hmac.compare_digest(hash_password(password, self.salt, self.n, self.r, self.p), self.digest)

    def to_json(self, revoked: dict[str, int] | None = None) -> str:
        return json.dumps(
            {
                "version": 1,
                "kdf": "scrypt",
                "n": self.n,
                "r": self.r,
                "p": self.p,
                "salt": _b64(self.salt),
                "hash": _b64(self.digest),
                "session_secret": _b64(self.secret),
                # signed-out sessions: token digest -> when it would have expired
                "revoked_sessions": revoked or {},
            },
            indent=2,
        )

    @classmethod
    def read(cls, path: Path) -> PasswordRecord:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("kdf") != "scrypt":
                raise ValueError(f"unknown kdf {data.get('kdf')!r}")
            return cls(
                salt=_unb64(data["salt"]),
                digest=_unb64(data["hash"]),
                secret=_unb64(data["session_secret"]),
                n=int(data["n"]),
                r=int(data["r"]),
                p=int(data["p"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(
                f"{path} is not a readable password file ({exc}) — delete it to get a new password "
                "on the next --lan start, or set PET_PASSWORD"
            ) from None

    def write(self, path: Path, revoked: dict[str, int] | None = None) -> None:
        """Atomically, readable by the owner only: never a moment with loose permissions."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(self.to_json(revoked))
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)


def read_revoked(path: Path) -> dict[str, int]:
    """The signed-out sessions kept in auth.json (none in a file from before they were kept)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8")).get("revoked_sessions") or {}
        return {str(digest): int(until) for digest, until in data.items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def password_problem(password: str) -> str | None:
    """What is wrong with a chosen password, in words that say what is wanted; None if fine."""
    wanted = (
        f"use at least {MIN_PASSWORD_LENGTH} characters that are not all the same, and at least "
        f"{MIN_DIGITS_LENGTH} if only digits — e.g. four words like 'maple river cold lamp', "
        "or leave it unset and a strong one is generated"
    )
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"the password is too short ({len(password)} characters): {wanted}"
    if len(set(password)) == 1:
        return f"the password is one character repeated: {wanted}"
    if password.isdigit() and len(password) < MIN_DIGITS_LENGTH:
        return f"the password is only {len(password)} digits: {wanted}"
    return None


@dataclass(frozen=True)
class PasswordSetup:
    record: PasswordRecord
    #: a password made just now: show it once, it is not kept anywhere
    generated: str | None
    #: where the password came from, for the terminal
    source: str


def setup_password(settings: Settings) -> PasswordSetup:
    """The configured password (stored hashed, re-hashed when it changes), the
    one already in auth.json, or a new generated one."""
    path = settings.home / AUTH_FILE
    existing = PasswordRecord.read(path) if path.exists() else None
    if existing is not None:
        _tighten(path)
    if settings.password:
        problem = password_problem(settings.password)
        if problem:
            raise ConfigError(f"PET_PASSWORD (or password in config.toml): {problem}")
        if existing is not None and existing.matches(settings.password):
            return PasswordSetup(existing, None, "the password setting (PET_PASSWORD or config.toml)")
        record = PasswordRecord.new(settings.password)
        record.write(path)
        return PasswordSetup(record, None, "the password setting (PET_PASSWORD or config.toml)")
    if existing is not None:
        return PasswordSetup(existing, None, f"the one shown when it was made (forgot it? delete {path})")
    password = generate_password()
    record = PasswordRecord.new(password)
    record.write(path)
    return PasswordSetup(record, password, "generated now")


def _tighten(path: Path) -> None:
    # An auth.json copied in with loose permissions gets owner-only again.
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:
        pass


class Authenticator:
    """Checks passwords and session tokens; counts wrong passwords per client."""

    def __init__(
        self, record: PasswordRecord, clock: Callable[[], float] = time.time, store: Path | None = None
    ):
        """`store`: the auth.json that keeps signed-out sessions across restarts."""
        self._record = record
        self._clock = clock
        self._store = store
        self._key = hmac.new(record.secret, b"session:" + record.digest, hashlib.sha256).digest()
        # A right password is remembered as a keyed digest, so API clients that
        # send it with every request do not pay for scrypt each time.
        self._known: set[bytes] = set()
        #: signed-out sessions: token digest -> when the token would have expired
        self._revoked: dict[str, int] = read_revoked(store) if store is not None else {}
        self._lock = threading.Lock()
        self._slow = threading.BoundedSemaphore(MAX_PARALLEL_CHECKS)
        #: password attempts per client address; a right one clears its count
        self.attempts = SlidingWindow(MAX_ATTEMPTS, ATTEMPT_WINDOW_SECONDS)
        #: password checks from everyone, under the one key ALL_CLIENTS; a right one is given back
        self.guesses = SlidingWindow(MAX_GUESSES_IN_ALL, ATTEMPT_WINDOW_SECONDS)

    def _fingerprint(self, password: str) -> bytes:
        return hmac.new(self._key, b"password:" + password.encode("utf-8"), hashlib.sha256).digest()

    def is_cached(self, password: str) -> bool:
        """True when this password was checked right before (cheap to ask)."""
        with self._lock:
            return self._fingerprint(password) in self._known

    def check_password(self, password: str) -> bool:
        """Slow (scrypt) the first time; run it off the event loop."""
        if self.is_cached(password):
            return True
        if not password or len(password) > 1024:
            return False
        with self._slow:
            if not self._record.matches(password):
                return False
        with self._lock:
            self._known.add(self._fingerprint(password))
        return True

    def new_session(self) -> str:
        issued = str(int(self._clock()))
        nonce = secrets.token_urlsafe(12)
        return f"{issued}.{nonce}.{self._mac(issued, nonce)}"

    def _mac(self, issued: str, nonce: str) -> str:
        mac = hmac.new(self._key, f"{issued}.{nonce}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def check_session(self, token: str) -> bool:
        parts = token.split(".")
        # ASCII only: compare_digest raises on other text (a cookie is read as latin-1)
        if len(parts) != 3 or not token.isascii() or not parts[0].isdigit():
            return False
        issued, nonce, mac = parts
        if not hmac.compare_digest(self._mac(issued, nonce), mac):
            return False
        age = self._clock() - int(issued)
        with self._lock:
            revoked = self._token_digest(token) in self._revoked
        return not revoked and -60 <= age < SESSION_SECONDS

    def _token_digest(self, token: str) -> str:
        # The file holds no usable cookie: only a keyed digest of it.
        return hmac.new(self._key, b"revoked:" + token.encode(), hashlib.sha256).hexdigest()

    def end_session(self, token: str) -> None:
        """Sign the session out, here and (with a store) after a restart."""
        if not self.check_session(token):
            return
        now = int(self._clock())
        with self._lock:
            self._revoked[self._token_digest(token)] = int(token.split(".")[0]) + SESSION_SECONDS
            # a revocation outlives its token by nothing: expired ones are dropped
            self._revoked = {digest: until for digest, until in self._revoked.items() if until > now}
            if self._store is not None:
                self._record.write(self._store, self._revoked)
