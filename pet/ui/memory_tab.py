"""The Memory tab: look through what the pet remembers and put it right.

`MemoryPanel` holds the actions as plain methods (tested directly and through
gradio_client); `build_memory_tab` lays them out inside a `gr.Tab`. Each
action takes the page's session last: the tab shows and changes the
memories of the page's own pet (the first pet without one).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import gradio as gr

from pet.app import App
from pet.errors import PetError, StorageError
from pet.events import MemoryRecord
from pet.memory.portable import export_to, import_from
from pet.memory.recall import read_id
from pet.ui.session import Session, page_pet

HEADERS = ["#", "memory", "pinned", "said by", "state", "updated (UTC)"]
VIEWS = ["all", "pending", "forgotten"]
WHO = {"person": "you", "tool": "a tool", "model": "the pet"}


def _row(memory: MemoryRecord) -> list[Any]:
    state = "forgotten" if memory.deleted_at else ("⏳ pending" if memory.status == "pending" else "active")
    updated = memory.updated_at.strftime("%Y-%m-%d %H:%M") if memory.updated_at else ""
    return [memory.id, memory.content, "📌 pinned" if memory.pinned else "", WHO.get(memory.asserted_by, memory.asserted_by),
            state, updated]


def search_trouble(exc: StorageError) -> str:
    """What the page says when the memories cannot be listed: the store's
    reason (never its SQL) and what to try."""
    return f"⚠️ that search could not run ({exc}) — try fewer or shorter words"


class MemoryPanel:
    """The tab's actions. Each returns a status line; `rows` gives the table."""

    def __init__(self, app: App):
        self.app = app

    def _pet(self, session: Session | None) -> int:
        return page_pet(self.app, session).record.id

    def rows(self, query: str = "", view: str = "all", session: Session | None = None) -> list[list[Any]]:
        store = self.app.memories
        pet = self._pet(session)
        query = (query or "").strip()
        number = read_id(query) if query.startswith("#") else None
        if number is not None:
            found = [m for m in (store.get(pet, number),) if m is not None]
            return [_row(m) for m in found if view == "all" or m.status == view]
        options = {"forgotten": True} if view == "forgotten" else {"status": "pending"} if view == "pending" else {}
        try:
            return [_row(m) for m in store.listing(pet, contains=query, **options)]
        except StorageError as exc:
            raise gr.Error(search_trouble(exc), print_exception=False) from exc

    def _id(self, memory_id: Any) -> int:
        number = read_id(str(memory_id)) if memory_id not in (None, "") else None
        if number is None:
            raise ValueError("pick a memory in the table first (or type its number)")
        return number

    def _act(self, action, memory_id: Any, done: str, *args: Any, session: Session | None = None) -> str:
        try:
            number = self._id(memory_id)
            record = action(self._pet(session), number, *args)
        except (ValueError, PetError) as exc:
            return f"⚠️ {exc}"
        if record is None:
            return f"⚠️ there is no memory #{number} to change here"
        return f"{done} #{record.id}: {record.content}"

    def edit(self, memory_id: Any, content: str, session: Session | None = None) -> str:
        return self._act(self.app.memories.edit, memory_id, "✏️ saved", content, session=session)

    def pin(self, memory_id: Any, session: Session | None = None) -> str:
        memories = self.app.memories
        try:
            current = memories.get(self._pet(session), self._id(memory_id))
        except ValueError as exc:
            return f"⚠️ {exc}"
        if current is None:
            return f"⚠️ there is no memory {memory_id} to pin"
        return self._act(memories.set_pinned, current.id, "📌 unpinned" if current.pinned else "📌 pinned",
                         not current.pinned, session=session)

    def forget(self, memory_id: Any, session: Session | None = None) -> str:
        return self._act(self.app.memories.forget, memory_id, "🗑️ forgot (Undo brings it back)", session=session)

    def approve(self, memory_id: Any, session: Session | None = None) -> str:
        return self._act(self.app.memories.approve, memory_id, "✅ approved", session=session)

    def undo(self, memory_id: Any = None, session: Session | None = None) -> str:
        """Bring back the memory forgotten last, or the chosen forgotten one."""
        number = read_id(str(memory_id)) if memory_id not in (None, "") else None
        pet = self._pet(session)
        record = self.app.memories.restore(pet, number)
        if record is None and number is not None:
            record = self.app.memories.restore(pet)
        if record is None:
            return "nothing to undo: no memory has been forgotten"
        return f"↩️ restored #{record.id}: {record.content}"

    def export(self) -> tuple[str | None, str]:
        folder = self.app.settings.home / "exports"
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        path = folder / f"pet-export-{stamp}.json"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            export_to(self.app.db, path)
        except (OSError, PetError) as exc:
            return None, f"⚠️ export failed: {exc}"
        return str(path), f"📦 exported everything to {path}"

    def import_file(self, path: str | None) -> str:
        if not path:
            return "⚠️ choose an export file (.json) first"
        try:
            report = import_from(self.app.db, Path(path))
            self.app.reload()  # new pets and reminders take part at once
        except (OSError, PetError) as exc:
            return f"⚠️ nothing was imported: {exc}"
        return f"📥 imported: {_rows(report.added)} added, {report.skipped} already there\n\n" + "\n".join(
            f"- {line}" for line in report.lines()
        )


def _rows(count: int) -> str:
    return f"{count} row" if count == 1 else f"{count} rows"


def build_memory_tab(app: App, session: gr.State) -> dict[str, Any]:
    """The Memory tab's components and events, for the page's pet (its
    `session`); call inside `gr.Blocks`. Returns the listing's event
    (fn, inputs, outputs), for the page to refresh it when its pet changes."""
    panel = MemoryPanel(app)
    with gr.Tab("🧠 Memory / 记忆", id="memory") as tab:
        with gr.Row():
            query = gr.Textbox(label="Search / 搜索", placeholder="words or #id", scale=3)
            view = gr.Radio(VIEWS, value="all", label="Show", scale=2)
        table = gr.Dataframe(
            headers=HEADERS, value=None, interactive=False, wrap=True,
            column_widths=["8%", "50%", "8%", "10%", "10%", "14%"], elem_classes=["pet-memory-table"],
        )
        with gr.Row():
            chosen = gr.Textbox(label="Memory #", placeholder="click a row", scale=1)
            content = gr.Textbox(label="Text (edit and Save)", scale=4)
        with gr.Row():
            save = gr.Button("✏️ Save")
            pin = gr.Button("📌 Pin / unpin")
            forget = gr.Button("🗑️ Forget")
            undo = gr.Button("↩️ Undo forget")
            approve = gr.Button("✅ Approve")
        status = gr.Markdown()
        with gr.Accordion("Export / import", open=False):
            with gr.Row():
                export = gr.Button("📦 Export everything")
                exported = gr.File(label="Export file", interactive=False)
            upload = gr.File(label="Import an export file (merges, no duplicates)", file_types=[".json"])
            do_import = gr.Button("📥 Import")

    listing: dict[str, Any] = dict(fn=panel.rows, inputs=[query, view, session], outputs=table)
    query.submit(api_name="memory_list", **listing)
    view.change(api_visibility="private", **listing)
    tab.select(api_visibility="private", **listing)

    def pick(event: gr.SelectData) -> tuple[str, str]:
        row = event.row_value or []
        return (f"#{row[0]}", str(row[1])) if len(row) > 1 else ("", "")

    table.select(pick, None, [chosen, content], api_visibility="private")

    for button, action, inputs, name in (
        (save, panel.edit, [chosen, content], "memory_edit"),
        (pin, panel.pin, [chosen], "memory_pin"),
        (forget, panel.forget, [chosen], "memory_forget"),
        (undo, panel.undo, [chosen], "memory_undo"),
        (approve, panel.approve, [chosen], "memory_approve"),
    ):
        button.click(action, [*inputs, session], status, api_name=name).then(**listing, api_visibility="private")
    export.click(panel.export, None, [exported, status], api_name="memory_export")
    do_import.click(panel.import_file, upload, status, api_name="memory_import").then(**listing, api_visibility="private")
    return listing
