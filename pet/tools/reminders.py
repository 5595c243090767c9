"""set_reminder / list_reminders / cancel_reminder. Times are parsed in code
(pet.tools.when), never by the model; the confirmation quotes the stored id
and the local fire time."""

from __future__ import annotations

import datetime as dt
from typing import Callable, Protocol

from pet.errors import ToolArgumentError, ToolError
from pet.events import ReminderRecord
from pet.memory.recall import best_matches, read_id
from pet.tools.registry import Label, Tool, ToolContext
from pet.tools.when import describe, parse_when

MAX_REMINDER_CHARS = 500


class ReminderStoreLike(Protocol):
    def add(self, pet_id: int, text: str, due_at: dt.datetime, *, repeat: str = "none",
            source_message_id: int | None = None, conversation_id: int | None = None) -> ReminderRecord: ...
    def pending(self, pet_id: int) -> list[ReminderRecord]: ...
    def cancel(self, pet_id: int, reminder_id: int) -> ReminderRecord | None: ...


_REPEAT_WORDS = {"en": {"daily": "every day", "weekly": "every week"}, "zh": {"daily": "每天", "weekly": "每周"}}


def confirmation(record: ReminderRecord, now: dt.datetime, zone: dt.tzinfo, language: str) -> str:
    when = describe(record.due_at.astimezone(zone), now.astimezone(zone), language)
    repeat = _REPEAT_WORDS["zh" if language == "zh" else "en"].get(record.repeat)
    if language == "zh":
        return f"提醒 #{record.id} 已设好：{when}{f'（{repeat}）' if repeat else ''}，{record.text}"
    return f"Reminder #{record.id} set for {when}{f' ({repeat})' if repeat else ''}: {record.text}"


def reminder_tools(
    store: ReminderStoreLike, zone: Callable[[], dt.tzinfo], clock: Callable[[], dt.datetime]
) -> list[Tool]:
    def set_reminder(text: str, when: str, ctx: ToolContext) -> str:
        """Set a reminder for the person. The time is read from their words.

        Args:
            text: what to remind them of, e.g. "call mom"
            when: the time in the person's words, e.g. "in 20 minutes", "tomorrow at 9am", "明天早上8点"
        """
        text = " ".join(text.split())
        if not text:
            raise ToolArgumentError("say what the reminder is for", zh="要提醒什么呢？请说一下提醒的内容。")
        if len(text) > MAX_REMINDER_CHARS:
            raise ToolArgumentError(f"keep a reminder under {MAX_REMINDER_CHARS} characters",
                                    zh=f"提醒内容请少于{MAX_REMINDER_CHARS}个字符。")
        now = clock()
        parsed = parse_when(when, now, zone())
        record = store.add(
            ctx.pet_id, text, parsed.at, repeat=parsed.repeat,
            source_message_id=ctx.message_id, conversation_id=ctx.conversation_id,
        )
        return confirmation(record, now, zone(), ctx.language)

    def list_reminders(ctx: ToolContext) -> str:
        """List the person's upcoming reminders."""
        pending = store.pending(ctx.pet_id)
        if not pending:
            return "没有待办的提醒。" if ctx.language == "zh" else "No upcoming reminders."
        now = clock()
        return "\n".join(
            f"#{r.id} {describe(r.due_at.astimezone(zone()), now.astimezone(zone()), ctx.language)}: {r.text}"
            for r in pending
        )

    def cancel_reminder(which: str, ctx: ToolContext) -> str:
        """Cancel one upcoming reminder, by its id (like "#2") or by words from its text.

        Args:
            which: the reminder's id, or words from it, e.g. "#2" or "call mom"
        """
        reminder_id = read_id(which)
        if reminder_id is None:
            best = best_matches(which, [(r.id, r.text) for r in store.pending(ctx.pet_id)])
            if not best:
                raise ToolError(f"no upcoming reminder matches {which!r}; /reminders shows them all",
                                zh=f"没有对得上“{which}”的提醒；说“我有哪些提醒”可以看全部。")
            if len(best) > 1:
                raise ToolError("several reminders match; say which by its number, like \"cancel reminder #2\"",
                                zh="有几个提醒都对得上；请说要取消的编号，比如“取消提醒 #2”。")
            reminder_id = best[0]
        record = store.cancel(ctx.pet_id, reminder_id)
        if record is None:
            raise ToolError(f"there is no upcoming reminder #{reminder_id}", zh=f"没有编号为 #{reminder_id} 的待发提醒。")
        return f"已取消提醒 #{record.id}：{record.text}" if ctx.language == "zh" else (
            f"Cancelled reminder #{record.id}: {record.text}"
        )

    return [
        Tool.from_function(set_reminder, side_effect=True, reads_outside=False, claim="set_reminder",
                           label=Label(en=("setting a reminder", "set a reminder"), zh=("正在设提醒", "设好了提醒"))),
        Tool.from_function(list_reminders, reads_outside=False,
                           label=Label(en=("looking at reminders", "looked at reminders"),
                                       zh=("正在查看提醒", "看过了提醒"))),
        Tool.from_function(cancel_reminder, side_effect=True, reads_outside=False,
                           label=Label(en=("cancelling a reminder", "cancelled a reminder"),
                                       zh=("正在取消提醒", "取消了提醒"))),
    ]
