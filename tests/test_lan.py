"""LAN mode: the certificate, the addresses and QR code, and what may listen where."""

from __future__ import annotations

import datetime as dt
import io
import ipaddress
import stat

import pytest
from cryptography import x509

from pet.api.lan import hostnames, lan_addresses, phone_urls, prepare_lan, print_lan_banner, qr_svg, qr_text
from pet.api.server import bind_host, make_server
from pet.api.tls import RENEW_BEFORE, VALID_FOR, ensure_certificate
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.cli import build_parser
from pet.config import load_settings
from pet.errors import ConfigError

LAN = [ipaddress.ip_address("192.168.1.23"), ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")]
NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


def sans(path):
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return set(names.get_values_for_type(x509.IPAddress)), set(names.get_values_for_type(x509.DNSName))


def test_the_certificate_names_the_lan_addresses_and_host_and_keeps_its_key_private(tmp_path):
    cert = ensure_certificate(tmp_path, LAN, ["localhost", "myhost", "myhost.local"], now=NOW)
    ips, dns = sans(cert.cert_path)
    assert ips == set(LAN) and dns == {"localhost", "myhost", "myhost.local"}
    assert cert.created and cert.not_after == NOW + VALID_FOR
    assert stat.S_IMODE(cert.key_path.stat().st_mode) == 0o600
    assert len(cert.fingerprint.split(":")) == 32


def test_the_certificate_is_reused_while_it_fits(tmp_path):
    first = ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW)
    again = ensure_certificate(tmp_path, LAN[1:], ["localhost"], now=NOW + dt.timedelta(days=100))
    assert not again.created and again.fingerprint == first.fingerprint


def test_a_new_address_makes_a_new_certificate(tmp_path):
    first = ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW)
    moved = [ipaddress.ip_address("10.0.0.7"), *LAN[1:]]
    second = ensure_certificate(tmp_path, moved, ["localhost"], now=NOW)
    assert second.created and second.fingerprint != first.fingerprint
    assert ipaddress.ip_address("10.0.0.7") in sans(second.cert_path)[0]


def test_a_certificate_near_its_end_is_renewed(tmp_path):
    first = ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW)
    late = first.not_after - RENEW_BEFORE + dt.timedelta(hours=1)
    renewed = ensure_certificate(tmp_path, LAN, ["localhost"], now=late)
    assert renewed.created and renewed.not_after > first.not_after


def test_a_damaged_or_mismatched_pair_is_replaced(tmp_path):
    ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW)
    other = tmp_path / "other"
    ensure_certificate(other, LAN, ["localhost"], now=NOW)
    (tmp_path / "key.pem").write_bytes((other / "key.pem").read_bytes())  # the key of another cert
    assert ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW).created
    (tmp_path / "cert.pem").write_text("not a certificate")
    assert ensure_certificate(tmp_path, LAN, ["localhost"], now=NOW).created


def test_lan_addresses_are_reachable_ones_only():
    found = lan_addresses()
    assert all(not (ip.is_loopback or ip.is_link_local or ip.is_unspecified) for ip in found)
    assert phone_urls(7860, [ipaddress.IPv4Address("192.168.1.23")]) == ["https://192.168.1.23:7860/"]
    assert "localhost" in hostnames()


def _decode_half_blocks(text: str) -> list[list[bool]]:
    """Read the terminal drawing back: a block is drawn where a module is light."""
    top = {"█": False, "▀": False, "▄": True, " ": True}
    bottom = {"█": False, "▀": True, "▄": False, " ": True}
    rows = []
    for line in text.splitlines():
        rows.append([top[c] for c in line])
        rows.append([bottom[c] for c in line])
    return rows


def test_the_terminal_qr_code_draws_every_module_of_the_url():
    import qrcode

    url = "https://192.168.1.23:7860/"
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(url)
    code.make(fit=True)
    matrix = code.get_matrix()
    drawn = _decode_half_blocks(qr_text(url, colour=False))
    assert drawn[: len(matrix)] == matrix
    assert all(not any(row) for row in drawn[len(matrix) :])  # only padding below
    coloured = qr_text(url, colour=True)
    assert coloured.startswith("\x1b[97;40m")  # black on white whatever the terminal


def test_the_qr_svg_has_a_white_ground_and_dark_modules():
    svg = qr_svg("https://10.0.0.7:7860/")
    assert svg.startswith("<svg") and 'fill="#fff"' in svg and 'fill="#000"' in svg


def test_listening_beyond_loopback_without_lan_mode_is_refused():
    app = build(load_settings({"host": "0.0.0.0", "scheduler": "off"}), brain=ScriptedModel([]))
    try:
        with pytest.raises(ConfigError, match="refusing to listen on 0.0.0.0 without authentication.*--lan"):
            make_server(app)
        with pytest.raises(ConfigError, match="refusing to listen on 192.168.1.23"):
            make_server(app, host="192.168.1.23")
    finally:
        app.close()


def test_lan_mode_listens_on_all_interfaces_unless_a_host_is_set():
    assert bind_host(load_settings({"lan": True})) == "0.0.0.0"
    assert bind_host(load_settings({"lan": True, "host": "192.168.1.23"})) == "192.168.1.23"
    assert bind_host(load_settings()) == "127.0.0.1"


def test_the_lan_flag_turns_lan_mode_on():
    assert build_parser().parse_args(["--lan"]).lan is True
    assert build_parser().parse_args(["run", "--lan"]).lan is True
    assert not hasattr(build_parser().parse_args(["run"]), "lan")


def test_the_banner_shows_the_url_qr_and_a_new_password_once(pet_home):
    settings = load_settings({"lan": True})
    out = io.StringIO()
    access = prepare_lan(settings)
    print_lan_banner(access, 7860, out)
    text = out.getvalue()
    assert access.password.generated in text
    assert access.certificate.fingerprint in text
    urls = phone_urls(7860)
    if urls:
        assert f"on the LAN:  {urls[0]}" in text and "█" in text
    else:
        assert "no network address found" in text

    out = io.StringIO()
    print_lan_banner(prepare_lan(settings), 7860, out)  # the second start
    assert access.password.generated not in out.getvalue()
    assert "forgot it? delete" in out.getvalue()
