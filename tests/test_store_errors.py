"""When the database refuses a query, the person reads what went wrong and
what to try; never the SQL statement or the text it carried."""

from __future__ import annotations

import gradio as gr
import pytest
from serving import stop_server

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import StorageError
from pet.ui.memory_tab import MemoryPanel

#: longer than SQLite's limit on a LIKE pattern (50,000 bytes): the query fails
LONG_SEARCH = "secret words " * 5000


@pytest.fixture
def app():
    application = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    application.memories.remember(application.pet.id, "likes oolong tea")
    yield application
    application.close()


def _shows_no_sql(text: str) -> None:
    for leak in ("SELECT", "[SQL", "memories.content", "secret words", "parameters"):
        assert leak not in text, text[:300]


def test_a_store_error_names_the_reason_without_the_statement(app):
    with pytest.raises(StorageError) as caught:
        app.memories.listing(app.pet.id, contains=LONG_SEARCH)
    assert str(caught.value) == "database error: LIKE or GLOB pattern too complex"


def test_a_long_search_in_the_memory_tab_says_what_to_try(app):
    with pytest.raises(gr.Error) as caught:
        MemoryPanel(app).rows(LONG_SEARCH)
    message = caught.value.message
    _shows_no_sql(message)
    assert "that search could not run" in message and "try fewer or shorter words" in message
    assert [row[1] for row in MemoryPanel(app).rows("oolong")] == ["likes oolong tea"]  # the tab still works


@pytest.mark.slow
def test_the_page_gets_the_clear_message(app):
    from serving import gradio_client

    from pet.api.server import start_in_thread

    server = start_in_thread(app, port=0)
    try:
        client = gradio_client(server.url)
        with pytest.raises(Exception) as caught:
            client.predict(LONG_SEARCH, "all", api_name="/memory_list")
        table = client.predict("oolong", "all", api_name="/memory_list")
    finally:
        stop_server(server)
    _shows_no_sql(str(caught.value))
    assert "try fewer or shorter words" in str(caught.value)
    assert [row[1] for row in table["data"]] == ["likes oolong tea"]
