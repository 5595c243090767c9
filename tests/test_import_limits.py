"""An import file that is too deep or too large is refused in words, with
nothing imported."""

from __future__ import annotations

import json

import pytest

from pet.errors import ExportFileError
from pet.memory import portable
from pet.memory.db import SCHEMA_VERSION
from pet.memory.portable import FORMAT, read_export


def _export(memories: list) -> dict:
    return {"format": FORMAT, "version": 1, "schema_version": SCHEMA_VERSION, "tables": {"memories": memories}}


def test_json_nested_far_too_deep_is_refused_in_words(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ExportFileError) as refused:
        read_export(path)
    assert str(refused.value).startswith(f"{path} is not a pet export (its JSON nests far deeper")
    assert "python run.py export" in str(refused.value)


def test_a_deep_value_inside_a_row_is_refused_in_words(tmp_path):
    path = tmp_path / "deep-row.json"
    text = json.dumps(_export([{"id": 1, "content": "PLACEHOLDER"}]))
    path.write_text(text.replace('"PLACEHOLDER"', "[" * 950 + "]" * 950), encoding="utf-8")
    with pytest.raises(ExportFileError) as refused:  # parses, but quoting the value would recurse
        read_export(path)
    assert str(refused.value).startswith(str(path))


def test_a_file_over_the_size_limit_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(portable, "MAX_EXPORT_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_export([{"id": i, "content": "x" * 50} for i in range(40)])), encoding="utf-8")
    with pytest.raises(ExportFileError, match="bytes, larger than the 1,000 bytes an export may be; nothing was imported"):
        read_export(path)
