"""The Inbox tab and the page's timer: what the pet says unasked (reminders
that fired, the morning brief, missed reminders) reaches an open page within
seconds as a toast, and waits in the Inbox tab otherwise. The tab also lists
upcoming reminders with a cancel button.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import gradio as gr

from pet.app import App
from pet.memory.recall import read_id
from pet.tools.when import describe

#: seconds between two looks at the inbox from an open page
POLL_SECONDS = 3.0
ICONS = {"reminder": "⏰", "brief": "🌅", "missed": "🕰️"}
REPEATS = {"none": "", "daily": "every day / 每天", "weekly": "every week / 每周"}


class InboxPanel:
    def __init__(self, app: App):
        self.app = app

    def _local(self, moment: dt.datetime) -> str:
        zone = self.app.persona.zone()
        return describe(moment.astimezone(zone), self.app.clock().astimezone(zone), self.app.persona.languages[0])

    def poll(self, shown: list[int] | None) -> tuple[list[str], list[int]]:
        """Unread messages of every pet not yet shown on this page, and the ids shown so far."""
        shown = list(shown or [])
        lines, seen = [], []
        for runtime in self.app.pets():  # every pet's, each named: another pet's reminder must not go unseen
            persona = runtime.persona
            for m in self.app.inbox.unread(runtime.record.id):
                if m.id not in shown:
                    lines.append(f"{ICONS.get(m.kind, '📬')} {persona.display_name(persona.languages[0])}: "
                                 f"{m.text}" + (" (late)" if m.late else ""))
                    seen.append(m.id)
        return lines, shown + seen

    def badge(self) -> str:
        count = self.app.inbox.unread_count(self.app.pet.id)
        return f"📬 **{count} unread** — see the Inbox tab" if count else ""

    def listing(self) -> str:
        messages = self.app.inbox.recent(self.app.pet.id, 30)
        if not messages:
            return "Nothing yet. Reminders and the morning brief arrive here. / 还没有消息。"
        lines = []
        for m in messages:
            state = "" if m.read_at else " 🆕"
            late = " · late" if m.late else ""
            when = self._local(m.deliver_at)
            text = " ".join(m.text.split("\n"))
            lines.append(f"- {ICONS.get(m.kind, '📬')} **{when}**{late}{state} — {text}")
        return "\n".join(lines)

    def mark_read(self) -> str:
        unread = self.app.inbox.unread(self.app.pet.id)
        self.app.inbox.mark_read([m.id for m in unread])
        return f"✔️ {len(unread)} marked read" if unread else "nothing unread"

    def reminder_rows(self) -> list[list[Any]]:
        return [[r.id, self._local(r.due_at), REPEATS.get(r.repeat, r.repeat), r.text]
                for r in self.app.reminders.pending(self.app.pet.id)]

    def cancel(self, which: Any) -> str:
        number = read_id(str(which or ""))
        if number is None:
            return "⚠️ pick a reminder in the table first (or type its number)"
        record = self.app.reminders.cancel(self.app.pet.id, number)
        if record is None:
            return f"⚠️ there is no upcoming reminder #{number}"
        return f"🗑️ cancelled reminder #{record.id}: {record.text}"


def build_inbox_tab(app: App) -> InboxPanel:
    """The Inbox tab and the polling timer; call inside `gr.Tabs()`."""
    panel = InboxPanel(app)
    shown = gr.State([])
    with gr.Tab("📬 Inbox / 消息", id="inbox") as tab:
        badge = gr.Markdown(panel.badge)
        messages = gr.Markdown(panel.listing)
        read = gr.Button("✔️ Mark all read")
        gr.Markdown("**Upcoming reminders / 提醒**")
        reminders = gr.Dataframe(headers=["#", "when", "repeat", "reminder"], value=panel.reminder_rows,
                                 interactive=False, wrap=True)
        with gr.Row():
            chosen = gr.Textbox(label="Reminder #", placeholder="click a row", scale=1)
            cancel = gr.Button("🗑️ Cancel reminder", scale=1)
        status = gr.Markdown()
    timer = gr.Timer(POLL_SECONDS)

    def tick(seen: list[int]) -> tuple:
        lines, seen = panel.poll(seen)
        for line in lines:
            gr.Info(line, duration=30)
        if lines:
            return seen, panel.badge(), panel.listing(), panel.reminder_rows()
        return seen, gr.skip(), gr.skip(), gr.skip()

    timer.tick(tick, shown, [shown, badge, messages, reminders], show_progress="hidden", api_name="inbox_poll")
    refresh = dict(fn=lambda: (panel.badge(), panel.listing(), panel.reminder_rows()), inputs=None,
                   outputs=[badge, messages, reminders], api_visibility="private")
    tab.select(**refresh)
    read.click(panel.mark_read, None, status, api_name="inbox_mark_read").then(**refresh)

    def pick(event: gr.SelectData) -> str:
        row = event.row_value or []
        return f"#{row[0]}" if row else ""

    reminders.select(pick, None, chosen, api_visibility="private")
    cancel.click(panel.cancel, chosen, status, api_name="reminder_cancel").then(**refresh)
    return panel
