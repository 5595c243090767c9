"""The kept prompt reading's file alone (pet.brain.prompt_cache), without a
model: what is written is read back only for the same tokens and model,
whole; anything else is None, and a write leaves no temporary files."""

from __future__ import annotations

import logging

from pet.brain.prompt_cache import MAGIC, MIN_TOKENS, PromptCache

TOKENS = list(range(MIN_TOKENS + 10))


def _cache(tmp_path, bindings: str = "0.3") -> PromptCache:
    model = tmp_path / "model.gguf"
    if not model.exists():
        model.write_bytes(b"GGUF" + b"\0" * 100)
    return PromptCache(tmp_path / "cache", model, 4096, bindings)


def test_what_is_kept_comes_back_for_the_same_tokens_only(tmp_path):
    cache = _cache(tmp_path)
    assert cache.load(TOKENS) is None  # nothing kept yet
    assert cache.save(TOKENS, b"llama state")
    assert cache.load(TOKENS) == b"llama state"
    assert cache.load(TOKENS[:-1]) is None and cache.load([*TOKENS, 1]) is None
    assert _cache(tmp_path, bindings="0.4").load(TOKENS) is None  # other bindings: another file, none kept
    assert not cache.save(TOKENS[:MIN_TOKENS - 1], b"short")  # a short prompt is quick to read again


def test_a_damaged_or_foreign_file_is_none_with_a_warning(tmp_path, caplog):
    cache = _cache(tmp_path)
    cache.save(TOKENS, b"llama state")
    whole = cache.path.read_bytes()
    with caplog.at_level(logging.WARNING, logger="pet.brain.prompt_cache"):
        cache.path.write_bytes(whole[:-1] + b"X")
        assert cache.load(TOKENS) is None and "damaged" in caplog.text
        cache.path.write_bytes(MAGIC + b"[1, 2]\n" + b"state")  # valid JSON, no table
        assert cache.load(TOKENS) is None
        cache.path.write_bytes(b"something else entirely")
        assert cache.load(TOKENS) is None


def test_keeping_one_removes_other_models_readings_and_left_over_writes(tmp_path):
    cache = _cache(tmp_path)
    folder = cache.path.parent
    folder.mkdir(parents=True)
    (folder / "prompt-0123456789abcdef.bin").write_bytes(b"another model's")
    (folder / ".prompt-abc123").write_bytes(b"a write a killed process left")
    assert cache.save(TOKENS, b"llama state")
    assert sorted(p.name for p in folder.iterdir()) == [cache.path.name]
