"""The Inbox tab: the history of what the pet said unasked (reminders that
fired, the morning brief, missed reminders), which also arrives in the chat
(pet.ui.arrivals); the button that turns on browser notifications; upcoming
reminders with a cancel button. All of it for the page's own pet: each
method takes the page's session last (the first pet without one).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import gradio as gr

from pet.app import App
from pet.memory.recall import read_id
from pet.tools.when import describe
from pet.ui.arrivals import notify_button
from pet.ui.session import Session, page_pet

#: each kind in words (an emoji alone may show as a box)
KINDS = {"reminder": "⏰ reminder", "brief": "🌅 morning brief", "missed": "🕰️ missed reminder"}
REPEATS = {"none": "", "daily": "every day / 每天", "weekly": "every week / 每周"}


class InboxPanel:
    def __init__(self, app: App):
        self.app = app
        #: the badge, the listing and the reminders' table, once built
        self.components: tuple[gr.components.Component, ...] = ()

    def _pet(self, session: Session | None) -> int:
        return page_pet(self.app, session).record.id

    def _local(self, moment: dt.datetime, session: Session | None) -> str:
        persona = page_pet(self.app, session).persona
        zone = persona.zone()
        return describe(moment.astimezone(zone), self.app.clock().astimezone(zone), persona.languages[0])

    def badge(self, session: Session | None = None) -> str:
        count = self.app.inbox.unread_count(self._pet(session))
        return f"**{count} unread / 未读** (they are in the chat too)" if count else ""

    def listing(self, session: Session | None = None) -> str:
        messages = self.app.inbox.recent(self._pet(session), 30)
        if not messages:
            return "Nothing yet. Reminders and the morning brief arrive here. / 还没有消息。"
        lines = []
        for m in messages:
            state = "" if m.read_at else " · **new**"
            late = " · late" if m.late else ""
            when = self._local(m.deliver_at, session)
            text = " ".join(m.text.split("\n"))
            lines.append(f"- **{when}** · {KINDS.get(m.kind, m.kind)}{late}{state} — {text}")
        return "\n".join(lines)

    def mark_read(self, session: Session | None = None) -> str:
        unread = self.app.inbox.unread(self._pet(session))
        self.app.inbox.mark_read([m.id for m in unread])
        return f"{len(unread)} marked read" if unread else "nothing unread"

    def reminder_rows(self, session: Session | None = None) -> list[list[Any]]:
        return [[r.id, self._local(r.due_at, session), REPEATS.get(r.repeat, r.repeat), r.text]
                for r in self.app.reminders.pending(self._pet(session))]

    def cancel(self, which: Any, session: Session | None = None) -> str:
        number = read_id(str(which or ""))
        if number is None:
            return "⚠️ Pick a reminder in the table first (or type its number)."
        record = self.app.reminders.cancel(self._pet(session), number)
        if record is None:
            return f"⚠️ There is no upcoming reminder #{number}."
        return f"Cancelled reminder #{record.id}: {record.text}"

    def refresh(self, session: Session | None = None) -> tuple[str, str, list[list[Any]]]:
        """The badge, the listing and the upcoming reminders, as `components` show them."""
        return self.badge(session), self.listing(session), self.reminder_rows(session)


def build_inbox_tab(app: App, session: gr.State) -> InboxPanel:
    """The Inbox tab of the page's pet (its `session`); call inside
    `gr.Tabs()`. Its listing follows new messages through pet.ui.arrivals
    (given this panel)."""
    panel = InboxPanel(app)
    with gr.Tab("📬 Inbox / 消息", id="inbox") as tab:
        notify_button()
        badge = gr.Markdown()
        messages = gr.Markdown()
        read = gr.Button("✔️ Mark all read / 全部已读")
        gr.Markdown("**Upcoming reminders / 提醒**")
        reminders = gr.Dataframe(headers=["#", "when", "repeat", "reminder"], value=None,
                                 interactive=False, wrap=True, elem_classes=["pet-reminder-table"])
        with gr.Row():
            chosen = gr.Textbox(label="Reminder #", placeholder="click a row", scale=1)
            cancel = gr.Button("🗑️ Cancel reminder / 取消提醒", scale=1)
        status = gr.Markdown()
    panel.components = (badge, messages, reminders)
    refresh = dict(fn=panel.refresh, inputs=[session], outputs=[badge, messages, reminders], api_visibility="private")
    tab.select(**refresh)
    read.click(panel.mark_read, session, status, api_name="inbox_mark_read").then(**refresh)

    def pick(event: gr.SelectData) -> str:
        row = event.row_value or []
        return f"#{row[0]}" if row else ""

    reminders.select(pick, None, chosen, api_visibility="private")
    cancel.click(panel.cancel, [chosen, session], status, api_name="reminder_cancel").then(**refresh)
    return panel
