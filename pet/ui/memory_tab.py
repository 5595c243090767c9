"""The Memory tab: look through what the pet remembers and put it right.

`MemoryPanel` holds the actions as plain methods (tested directly and through
gradio_client); `build_memory_tab` lays them out inside a `gr.Tab`.
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

    @property
    def _pet(self) -> int:
        return self.app.pet.id

    def rows(self, query: str = "", view: str = "all") -> list[list[Any]]:
        store = self.app.memories
        query = query.strip()
        number = read_id(query) if query.startswith("#") else None
        if number is not None:
            found = [m for m in (store.get(self._pet, number),) if m is not None]
            return [_row(m) for m in found if view == "all" or m.status == view]
        options = {"forgotten": True} if view == "forgotten" else {"status": "pending"} if view == "pending" else {}
        try:
            return [_row(m) for m in store.listing(self._pet, contains=query, **options)]
        except StorageError as exc:
            raise gr.Error(search_trouble(exc), print_exception=False) from exc

    def _id(self, memory_id: Any) -> int:
        number = read_id(str(memory_id)) if memory_id not in (None, "") else None
        if number is None:
            raise ValueError("pick a memory in the table first (or type its number)")
        return number

    def _act(self, action, memory_id: Any, done: str, *args: Any) -> str:
        try:
            number = self._id(memory_id)
            record = action(self._pet, number, *args)
        except (ValueError, PetError) as exc:
            return f"⚠️ {exc}"
        if record is None:
            return f"⚠️ there is no memory #{number} to change here"
        return f"{done} #{record.id}: {record.content}"

    def edit(self, memory_id: Any, content: str) -> str:
        return self._act(self.app.memories.edit, memory_id, "✏️ saved", content)

    def pin(self, memory_id: Any) -> str:
        memories = self.app.memories
        try:
            current = memories.get(self._pet, self._id(memory_id))
        except ValueError as exc:
            return f"⚠️ {exc}"
        if current is None:
            return f"⚠️ there is no memory {memory_id} to pin"
        return self._act(memories.set_pinned, current.id, "📌 unpinned" if current.pinned else "📌 pinned",
                         not current.pinned)

    def forget(self, memory_id: Any) -> str:
        return self._act(self.app.memories.forget, memory_id, "🗑️ forgot (Undo brings it back)")

    def approve(self, memory_id: Any) -> str:
        return self._act(self.app.memories.approve, memory_id, "✅ approved")

    def undo(self, memory_id: Any = None) -> str:
        """Bring back the memory forgotten last, or the chosen forgotten one."""
        number = read_id(str(memory_id)) if memory_id not in (None, "") else None
        record = self.app.memories.restore(self._pet, number)
        if record is None and number is not None:
            record = self.app.memories.restore(self._pet)
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
        return f"📥 imported: {report.added} rows added, {report.skipped} already there\n\n" + "\n".join(
            f"- {line}" for line in report.lines()
        )


def build_memory_tab(app: App) -> None:
    """The Memory tab's components and events; call inside `gr.Blocks`."""
    panel = MemoryPanel(app)
    with gr.Tab("🧠 Memory / 记忆", id="memory") as tab:
        with gr.Row():
            query = gr.Textbox(label="Search / 搜索", placeholder="words or #id", scale=3)
            view = gr.Radio(VIEWS, value="all", label="Show", scale=2)
        table = gr.Dataframe(
            headers=HEADERS, value=lambda: panel.rows(), interactive=False, wrap=True,
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

    listing: dict[str, Any] = dict(fn=panel.rows, inputs=[query, view], outputs=table)
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
        button.click(action, inputs, status, api_name=name).then(**listing, api_visibility="private")
    export.click(panel.export, None, [exported, status], api_name="memory_export")
    do_import.click(panel.import_file, upload, status, api_name="memory_import").then(**listing, api_visibility="private")
