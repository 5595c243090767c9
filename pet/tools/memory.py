"""remember / forget / recall: the pet's long-term memory as tools."""

from __future__ import annotations

from typing import Protocol

from pet.errors import ToolArgumentError, ToolError
from pet.events import MemoryRecord
from pet.memory.recall import best_matches, read_id
from pet.tools.registry import Tool, ToolContext

MAX_MEMORY_CHARS = 1000


class MemoryStoreLike(Protocol):
    def remember(self, pet_id: int, content: str, *, tag: str = "", source_message_id: int | None = None,
                 conversation_id: int | None = None) -> tuple[MemoryRecord, bool]: ...
    def forget(self, pet_id: int, memory_id: int) -> MemoryRecord | None: ...
    def search(self, pet_id: int, text: str, limit: int = 10) -> list[MemoryRecord]: ...


def _forgot(record: MemoryRecord, language: str) -> str:
    if language == "zh":
        return f"已忘掉 #{record.id}：{record.content}"
    return f"Forgot memory #{record.id}: {record.content}"


def memory_tools(store: MemoryStoreLike) -> list[Tool]:
    def remember(content: str, ctx: ToolContext) -> str:
        """Save a fact about the person in long-term memory. Use it when they ask you to remember something.

        Args:
            content: the fact, short and in the person's words, e.g. "codes after 11pm"
        """
        content = " ".join(content.split())
        if not content:
            raise ToolArgumentError("content is empty: say what to remember")
        if len(content) > MAX_MEMORY_CHARS:
            raise ToolArgumentError(f"content is {len(content)} characters; keep a memory under {MAX_MEMORY_CHARS}")
        record, created = store.remember(
            ctx.pet_id, content, source_message_id=ctx.message_id, conversation_id=ctx.conversation_id
        )
        if ctx.language == "zh":
            return f"已记住 #{record.id}：{record.content}" if created else f"早就记着啦（#{record.id}，已更新）：{record.content}"
        if created:
            return f"Saved memory #{record.id}: {record.content}"
        return f"Already remembered as memory #{record.id}; updated it: {record.content}"

    def forget(what: str, ctx: ToolContext) -> str:
        """Forget one memory, by its id (like "#12") or by words that describe it.

        Args:
            what: the memory's id, or words from it
        """
        memory_id = read_id(what)
        if memory_id is not None:
            record = store.forget(ctx.pet_id, memory_id)
            if record is None:
                raise ToolError(f"there is no memory #{memory_id}")
            return _forgot(record, ctx.language)
        best = best_matches(what, [(m, m.content) for m in store.search(ctx.pet_id, what, limit=5)])
        if not best:
            raise ToolError(f"no memory matches {what!r}; use recall to find it first")
        if len(best) > 1:
            listing = "; ".join(f"#{m.id} {m.content}" for m in best)
            raise ToolError(f"several memories match: {listing}. Call forget again with one id")
        record = store.forget(ctx.pet_id, best[0].id)
        if record is None:
            raise ToolError(f"memory #{best[0].id} was already forgotten")
        return _forgot(record, ctx.language)

    def recall(query: str, ctx: ToolContext) -> str:
        """Search long-term memory for what you know about a topic.

        Args:
            query: words to look for, e.g. "birthday" or "咖啡"
        """
        found = store.search(ctx.pet_id, query, limit=8)
        if not found:
            return f"关于“{query}”，没有找到记忆。" if ctx.language == "zh" else f"No memories match {query!r}."
        return "\n".join(f"#{m.id}: {m.content}" for m in found)

    return [
        Tool.from_function(remember, side_effect=True),
        Tool.from_function(forget, side_effect=True),
        Tool.from_function(recall),
    ]
