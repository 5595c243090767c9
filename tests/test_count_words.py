"""Counts read as words do: one memory, one open item; and the recall step
has a natural Chinese label."""

from __future__ import annotations

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.tools.notes import todo_tools
from pet.tools.registry import ToolContext


def test_one_memory_and_one_open_item_are_singular(tmp_path):
    app = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    try:
        pet = app.first_pet()
        app.memories.remember(pet.record.id, "likes oolong tea")
        ctx = ToolContext(pet_id=pet.record.id, conversation_id=1)
        recall = pet.tools.get("recall")
        assert recall is not None
        one = recall.function(query="me", ctx=ctx)
        assert "(1 memory, pinned first)" in one and "memories" not in one
        app.memories.remember(pet.record.id, "has a cat called Mochi")
        assert "(2 memories, pinned first)" in recall.function(query="me", ctx=ctx)
        # the step's label in Chinese: leafing through memories, not "thought it over"
        label = pet.tools.label("recall")
        assert label.text("zh", done=True) == "翻了翻记忆" and label.text("zh", done=False) == "正在翻记忆"
    finally:
        app.close()

    add = {tool.name: tool for tool in todo_tools(tmp_path)}["add_todo"].function
    assert add(text="buy bread", ctx=ToolContext(pet_id=1, conversation_id=1)).endswith("(1 open item)")
    assert add(text="buy milk", ctx=ToolContext(pet_id=1, conversation_id=1)).endswith("(2 open items)")
