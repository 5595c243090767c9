"""What the page may load: a reply or a tool's output shown as Markdown cannot
make the browser fetch from anywhere but the pet itself."""

from __future__ import annotations

import threading

import httpx
import pytest
from browser import chromium
from fakeserver import CountingServer

from pet.api.headers import CONTENT_POLICY
from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings


def Elsewhere() -> CountingServer:  # noqa: N802
    """Another origin (127.0.0.2 is loopback, but not the pet): counts what it is asked for."""
    return CountingServer("127.0.0.2", content_type="image/gif", body=b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")


@pytest.fixture
def pet_server():
    servers = []

    def start(model):
        app = build(load_settings({"reflexes": False}), brain=model)
        server = start_in_thread(app, port=0)
        servers.append((app, server))
        return server

    yield start
    for app, server in servers:
        server.stop()
        app.close()


@pytest.mark.slow
def test_every_response_says_what_the_page_may_load(pet_server):
    server = pet_server(ScriptedModel())
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for path in ("/", "/api/tools", "/healthz", "/no-such-page"):
            response = client.get(path)
            assert response.headers["content-security-policy"] == CONTENT_POLICY, path
            assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.slow
def test_an_image_in_a_reply_is_not_fetched_from_elsewhere(pet_server):
    from playwright.sync_api import expect

    elsewhere = Elsewhere()
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    try:
        pixel = f"http://127.0.0.2:{elsewhere.server_address[1]}/pixel.gif?what=your+secrets"
        server = pet_server(ScriptedModel([f"Here you go ![pixel]({pixel}) all done."]))
        with chromium() as browser:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(server.url + "/", wait_until="load")
            box = page.get_by_placeholder("Chat with", exact=False)
            box.fill("show me")
            box.press("Enter")
            expect(page.get_by_text("all done.")).to_be_visible(timeout=60_000)  # a busy machine is slow
            # the image element is on the page; the browser refused to fetch it
            expect(page.locator(f'img[src="{pixel}"]')).to_have_count(1)
            page.wait_for_timeout(500)
        assert elsewhere.hits == []
    finally:
        elsewhere.shutdown()
        elsewhere.server_close()
