"""A self-signed HTTPS certificate made on this machine, for its LAN addresses.

Phones allow the microphone only on HTTPS pages, so LAN mode needs one. It
lives in `<home>/tls/` and is reused while it is valid for at least
RENEW_BEFORE and names every current address; otherwise a new one is made.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
CERT_FILE = "cert.pem"
KEY_FILE = "key.pem"
VALID_FOR = dt.timedelta(days=365)
RENEW_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class Certificate:
    cert_path: Path
    key_path: Path
    not_after: dt.datetime
    ips: frozenset[IPAddress]
    hostnames: frozenset[str]
    #: SHA-256 of the certificate, as a phone's certificate details show it
    fingerprint: str
    #: made by this call (False: an earlier one was reused)
    created: bool


def ensure_certificate(
    folder: Path,
    ips: Iterable[IPAddress],
    hostnames: Iterable[str],
    now: dt.datetime | None = None,
) -> Certificate:
    """The certificate in `folder` if it still fits, else a new one."""
    now = now or dt.datetime.now(dt.UTC)
    wanted_ips = frozenset(ips)
    wanted_names = frozenset(name.lower() for name in hostnames)
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    existing = _read(cert_path, key_path, created=False)
    if (
        existing is not None
        and existing.not_after - now > RENEW_BEFORE
        and wanted_ips <= existing.ips
        and wanted_names <= existing.hostnames
    ):
        return existing
    _make(cert_path, key_path, wanted_ips, wanted_names, now)
    made = _read(cert_path, key_path, created=True)
    assert made is not None  # just written
    return made


def _read(cert_path: Path, key_path: Path, created: bool) -> Certificate | None:
    """The stored pair, or None when missing, unreadable or not a pair."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, TypeError, x509.ExtensionNotFound):
        return None
    if key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ) != cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ):
        return None
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    return Certificate(
        cert_path=cert_path,
        key_path=key_path,
        not_after=cert.not_valid_after_utc,
        ips=frozenset(ip for ip in names.get_values_for_type(x509.IPAddress)
                      if isinstance(ip, (ipaddress.IPv4Address, ipaddress.IPv6Address))),
        hostnames=frozenset(n.lower() for n in names.get_values_for_type(x509.DNSName)),
        fingerprint=":".join(digest[i : i + 2] for i in range(0, len(digest), 2)),
        created=created,
    )


def _make(
    cert_path: Path, key_path: Path, ips: frozenset[IPAddress], hostnames: frozenset[str], now: dt.datetime
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    first_name = min(hostnames) if hostnames else "pet"
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, first_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "pet (self-signed on this machine)"),
        ]
    )
    alt_names: list[x509.GeneralName] = [x509.DNSName(name) for name in sorted(hostnames)]
    alt_names += [x509.IPAddress(ip) for ip in sorted(ips, key=lambda ip: (ip.version, int(ip)))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))  # a phone whose clock runs behind still accepts it
        .not_valid_after(now + VALID_FOR)
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    _write_private(
        key_path,
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))


def _write_private(path: Path, data: bytes) -> None:
    """Owner-only from the first byte, and replaced whole."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
