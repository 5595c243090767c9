"""Debian's Chromium driven by Playwright, for the browser tests (its own
browser download does not work offline)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: screenshots and the like, for a person to look at (git ignores the folder)
ARTIFACTS = Path(__file__).parent / "artifacts"


@contextmanager
def chromium(extra_args: Sequence[str] = ()) -> Iterator:
    """A headless Chromium; the test is skipped, saying why, without one."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package (apt install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args])
        try:
            yield browser
        finally:
            browser.close()


def patient_chromium() -> Iterator:
    """One Chromium for a test module, while Playwright's expect() waits up to
    a minute (two cores shared with other tests: slow, never stuck). A module
    takes it as its `browser` fixture:
    `browser = pytest.fixture(scope="module", name="browser")(patient_chromium)`."""
    from playwright.sync_api import expect

    expect.set_options(timeout=60_000)
    try:
        with chromium() as launched:
            yield launched
    finally:
        expect.set_options(timeout=5_000)


def close_pages(browser) -> None:
    """Close every page the test opened in a browser shared by the module:
    the next test starts with none, and no open page's streams hold its
    server's shutdown (uvicorn waits for them up to its graceful timeout)."""
    for context in list(browser.contexts):
        context.close()
