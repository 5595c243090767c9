"""LAN mode: this machine's addresses, the phone URL, its QR code, and the
password and certificate that must exist before anything listens."""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass
from typing import TextIO

from pet.api.auth import AUTH_FILE, Authenticator, PasswordSetup, setup_password
from pet.api.tls import Certificate, ensure_certificate
from pet.config import Settings

TLS_FOLDER = "tls"
#: an address in a private range; a UDP "connect" to it sends nothing but
#: makes the system pick the interface it would route through
_ROUTE_PROBE = ("10.254.254.254", 9)
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def _usable(ip: ipaddress.IPv4Address) -> bool:
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def _linux_addresses() -> list[ipaddress.IPv4Address]:
    import fcntl
    import struct

    found = []
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                raw = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # down, or no IPv4 address
        found.append(ipaddress.IPv4Address(raw[20:24]))
    return found


def _routed_address() -> list[ipaddress.IPv4Address]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_ROUTE_PROBE)
            return [ipaddress.IPv4Address(probe.getsockname()[0])]
        except (OSError, ValueError):
            return []


def lan_addresses() -> list[ipaddress.IPv4Address]:
    """This machine's IPv4 addresses a phone on the same network could reach,
    private ranges first."""
    found: list[ipaddress.IPv4Address] = []
    if sys.platform.startswith("linux"):
        try:
            found = _linux_addresses()
        except (OSError, ImportError):
            found = []
    if not any(_usable(ip) for ip in found):
        found += _routed_address()
    try:
        found += [
            ipaddress.IPv4Address(info[4][0])
            for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        ]
    except (OSError, UnicodeError):
        pass
    usable = sorted({ip for ip in found if _usable(ip)}, key=lambda ip: (not ip.is_private, int(ip)))
    return usable


def hostnames() -> list[str]:
    """Names the certificate carries: localhost, the host name and its .local (mDNS) name."""
    names = ["localhost"]
    host = socket.gethostname().strip().lower()
    if host and host != "localhost" and all(part.isascii() for part in host):
        names.append(host)
        if "." not in host:
            names.append(f"{host}.local")
    return names


def phone_urls(port: int, addresses: list[ipaddress.IPv4Address] | None = None) -> list[str]:
    addresses = lan_addresses() if addresses is None else addresses
    return [f"https://{ip}:{port}/" for ip in addresses]


def _qr_matrix(text: str) -> list[list[bool]]:
    import qrcode

    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(text)
    code.make(fit=True)
    return code.get_matrix()


# (upper module dark, lower module dark) -> the character. A block is drawn
# where a module is light, so the dark modules are the background.
_HALF_BLOCKS = {(False, False): "█", (False, True): "▀", (True, False): "▄", (True, True): " "}


def qr_text(text: str, colour: bool) -> str:
    """A QR code drawn with half blocks, two rows a line. With `colour`, black
    on white whatever the terminal's theme; without, light blocks on the
    terminal's (assumed dark) background."""
    rows = _qr_matrix(text)
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        line = "".join(_HALF_BLOCKS[pair] for pair in zip(top, bottom, strict=True))
        lines.append(f"\x1b[97;40m{line}\x1b[0m" if colour else line)
    return "\n".join(lines)


def print_qr(text: str, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(qr_text(text, colour=out.isatty()), file=out)


def qr_svg(text: str) -> str:
    """The QR code as inline SVG, dark modules on white."""
    rows = _qr_matrix(text)
    size = len(rows)
    cells = "".join(f"M{x},{y}h1v1h-1z" for y, row in enumerate(rows) for x, dark in enumerate(row) if dark)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" shape-rendering="crispEdges" '
        f'role="img" aria-label="QR code"><rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path d="{cells}" fill="#000"/></svg>'
    )


@dataclass(frozen=True)
class LanAccess:
    """What LAN mode needs before it listens: who may come in, and the certificate."""

    password: PasswordSetup
    authenticator: Authenticator
    certificate: Certificate


def prepare_lan(settings: Settings) -> LanAccess:
    """Set up the password (generating one if none) and the certificate."""
    password = setup_password(settings)
    ips: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [
        *lan_addresses(),
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
    ]
    certificate = ensure_certificate(settings.home / TLS_FOLDER, ips, hostnames())
    authenticator = Authenticator(password.record, store=settings.home / AUTH_FILE)
    return LanAccess(password, authenticator, certificate)


def print_lan_banner(access: LanAccess, port: int, out: TextIO | None = None) -> None:
    """What the person needs to open the pet on a phone: address, QR code,
    password (only when just made) and how to recognise the certificate."""
    out = out or sys.stdout
    urls = phone_urls(port)
    if urls:
        also = f"   (also {', '.join(urls[1:])})" if len(urls) > 1 else ""
        print(f"on the LAN:  {urls[0]}{also}", file=out)
    else:
        print("on the LAN:  no network address found — connect this computer to Wi-Fi and restart", file=out)
    setup = access.password
    if setup.generated:
        print(
            f"password:    {setup.generated}   ← write it down: shown this once, kept only as a hash",
            file=out,
        )
    else:
        print(f"password:    {setup.source}", file=out)
    cert = access.certificate
    print(
        f"certificate: self-signed on this machine, valid until {cert.not_after:%Y-%m-%d}; the phone warns "
        "once — check that its SHA-256 reads",
        file=out,
    )
    print(f"             {cert.fingerprint}", file=out)
    if urls:
        print("scan with the phone's camera (same Wi-Fi):", file=out)
        print_qr(urls[0], out)
