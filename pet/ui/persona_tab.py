"""The Pets tab: several pets (create, rename, Character Card import and
export) and the page's pet's persona (edit, save, reset to the shipped file;
with the header's "Technical details" on, preview the exact system prompt).

`PersonaPanel` holds the actions as plain methods, each taking the page's
session last (the first pet without one); `build_persona_tab` lays them
out. Switching pets is done by the pet picker at the top of the page
(`pet_choices`), for that page alone (pet.ui.session).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

import gradio as gr

from pet.agent.context import build_context
from pet.app import App, PetRuntime
from pet.errors import PetError
from pet.persona.card import load_card, write_card
from pet.persona.model import PERSONA_DIR, Persona
from pet.ui.session import Session, page_pet, resolve

LANGUAGES = ("zh", "en")


def pet_choices(app: App) -> list[tuple[str, int]]:
    """(label, pet id) for a dropdown: the name in both languages and the slug."""
    choices = []
    for runtime in app.pets():
        persona = runtime.persona
        names = dict.fromkeys(persona.display_name(lang) for lang in LANGUAGES)
        choices.append((f"{' / '.join(names)} ({runtime.record.slug})", runtime.record.id))
    return choices


def shipped_personas() -> list[str]:
    return sorted(path.stem for path in PERSONA_DIR.glob("*.toml"))


def _split(text: str) -> tuple[str, ...]:
    """Traits as typed: separated by commas (either kind), semicolons or lines."""
    for mark in "，;；\n、":
        text = text.replace(mark, ",")
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclasses.dataclass
class Fields:
    """The editable part of a persona, as the form shows it."""

    name_zh: str = ""
    name_en: str = ""
    traits_zh: str = ""
    traits_en: str = ""
    style_zh: str = ""
    style_en: str = ""
    adopted: str = ""  # YYYY-MM-DD, or empty for "the day it first ran"

    @classmethod
    def of(cls, persona: Persona) -> Fields:
        return cls(
            persona.name.get("zh", ""), persona.name.get("en", ""),
            ", ".join(persona.traits.get("zh", ())), ", ".join(persona.traits.get("en", ())),
            persona.style.get("zh", ""), persona.style.get("en", ""),
            persona.adopted.isoformat() if persona.adopted else "",
        )

    def values(self) -> list[str]:
        return list(dataclasses.astuple(self))

    def apply(self, persona: Persona) -> Persona:
        """The persona with these edits, for the languages it speaks. Raises
        PetError (PersonaError) or ValueError with a clear message."""
        names, traits, styles = dict(persona.name), dict(persona.traits), dict(persona.style)
        for lang in persona.languages:
            if lang not in LANGUAGES:
                continue
            name = " ".join(getattr(self, f"name_{lang}").split())
            if not name:
                raise ValueError(f"the name ({lang}) cannot be empty")
            names[lang] = name
            traits[lang] = _split(getattr(self, f"traits_{lang}"))
            if not traits[lang]:
                raise ValueError(f"give at least one trait ({lang}), separated by commas")
            styles[lang] = " ".join(getattr(self, f"style_{lang}").split())
            if not styles[lang]:
                raise ValueError(f"the speaking style ({lang}) cannot be empty")
        adopted = None
        if self.adopted.strip():
            try:
                adopted = dt.date.fromisoformat(self.adopted.strip())
            except ValueError:
                raise ValueError(f"adoption date {self.adopted.strip()!r} is not a date like 2026-11-29") from None
        return dataclasses.replace(persona, name=names, traits=traits, style=styles, adopted=adopted)


class PersonaPanel:
    def __init__(self, app: App):
        self.app = app
        #: what only the header's "Technical details" shows (the prompt preview), once built
        self.advanced: list[Any] = []
        #: the form's refresh (fn, inputs, outputs), for the page to run when its pet changes
        self.refresh: dict[str, Any] = {}

    def _pet(self, session: Session | None) -> PetRuntime:
        return page_pet(self.app, session)

    # -- pets ----------------------------------------------------------------------

    def switch(self, pet_id: Any) -> str:
        """What the picker says on choosing `pet_id`; the page's session
        moves (pet.ui.session), nothing else does."""
        try:
            runtime = self.app.runtime(int(pet_id))
        except (KeyError, TypeError, ValueError, OverflowError):  # int(inf) overflows
            return f"⚠️ there is no pet {pet_id!r}"
        return f"🐾 now talking with {runtime.persona.full_name()}"

    def create(self, name: str, template: str | None, session: Session | None = None) -> str:
        try:
            runtime = self.app.create_pet(name, template or None, like=self._pet(session).record.id)
        except (PetError, ValueError) as exc:
            return f"⚠️ {exc}"
        return f"🥚 {runtime.persona.full_name()} has joined the home (pick it at the top to talk to it)"

    def rename(self, name: str, session: Session | None = None) -> str:
        try:
            runtime = self.app.rename_pet(self._pet(session).record.id, name)
        except (PetError, ValueError) as exc:
            return f"⚠️ {exc}"
        return f"✏️ renamed: {runtime.persona.full_name()}"

    def import_card(self, path: str | None) -> str:
        """A Character Card V2 (.json or .png) becomes a new pet."""
        if not path:
            return "⚠️ choose a character card (.json or .png) first"
        try:
            runtime = self.app.adopt(load_card(Path(path)))
        except (PetError, ValueError, OSError) as exc:
            return f"⚠️ the card was not imported: {exc}"
        return f"🃏 {runtime.persona.full_name()} came from the card and joined the home"

    def export_card(self, session: Session | None = None) -> tuple[str | None, str]:
        runtime = self._pet(session)
        folder = self.app.settings.home / "exports"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = write_card(runtime.persona, folder / f"{runtime.record.slug}.card.json")
        except (PetError, OSError) as exc:
            return None, f"⚠️ {exc}"
        return str(path), f"🃏 Character Card V2 written to {path}"

    # -- the page's pet's persona ------------------------------------------------------

    def fields(self, session: Session | None = None) -> list[str]:
        return Fields.of(self._pet(session).persona).values()

    def preview(self, *values: str, language: str = "", session: Session | None = None) -> str:
        """The exact system prompt a message in the page's conversation would
        get now (before any summary of a long conversation), with the edits applied."""
        runtime, conversation = resolve(self.app, session)
        try:
            persona = Fields(*values).apply(runtime.persona)
        except (PetError, ValueError) as exc:
            return f"⚠️ {exc}"
        return self._system_prompt(runtime, conversation, persona, language or persona.languages[0])

    def _system_prompt(self, runtime: PetRuntime, conversation: int, persona: Persona, language: str) -> str:
        agent = runtime.agent
        context = build_context(
            persona=persona,
            pet_id=runtime.record.id,
            adopted=persona.adopted or runtime.record.adopted_on,
            conversation_id=conversation,
            text="",
            language=language if language in persona.languages else persona.languages[0],
            now=self.app.clock().astimezone(persona.zone()),
            history=self.app.conversations,
            memories=self.app.memories,
            history_messages=agent.config.history_messages,
            recall_limit=agent.config.recall_limit,
            with_tools=bool(runtime.tools.specs()),
            memory_tokens=agent.config.memory_tokens,
            volatile_last=getattr(agent.brain, "reuses_prompt_prefix", False),
        )
        system = [message.content for message in context.messages if message.role == "system"]
        return "\n".join(system)  # with the brain's layout: the volatile part may come last, after the history

    def save(self, *values: str, session: Session | None = None) -> str:
        runtime = self._pet(session)
        try:
            persona = Fields(*values).apply(runtime.persona)
            runtime = self.app.update_persona(runtime.record.id, persona)
        except (PetError, ValueError, OSError) as exc:
            return f"⚠️ not saved: {exc}"
        return f"💾 saved {runtime.persona.full_name()}; the next message uses it"

    def reset(self, session: Session | None = None) -> str:
        try:
            runtime = self.app.reset_persona(self._pet(session).record.id)
        except (PetError, OSError) as exc:
            return f"⚠️ {exc}"
        return f"↩️ {runtime.persona.full_name()} is back to the shipped persona file"


def build_persona_tab(app: App, picker: gr.Dropdown, session: gr.State) -> PersonaPanel:
    """The Pets tab, for the page's pet (its `session`). `picker` is the pet
    dropdown at the top of the page: its choices are refreshed when pets are
    created, renamed or imported. The prompt preview is in `panel.advanced`,
    hidden until the header's switch shows it."""
    panel = PersonaPanel(app)
    with gr.Tab("🐾 Pets / 宠物", id="pets") as tab:
        gr.Markdown("**This pet's persona** — edit and save. Traits are separated by commas.")
        with gr.Row():
            name_zh = gr.Textbox(label="名字 (zh)")
            name_en = gr.Textbox(label="Name (en)")
            adopted = gr.Textbox(label="Adopted on (YYYY-MM-DD; empty = the day it first ran)")
        with gr.Row():
            traits_zh = gr.Textbox(label="性格 (zh)", lines=2)
            traits_en = gr.Textbox(label="Traits (en)", lines=2)
        with gr.Row():
            style_zh = gr.Textbox(label="说话风格 (zh)", lines=2)
            style_en = gr.Textbox(label="Speaking style (en)", lines=2)
        form = [name_zh, name_en, traits_zh, traits_en, style_zh, style_en, adopted]
        with gr.Row():
            save = gr.Button("💾 Save", variant="primary")
            reset = gr.Button("↩️ Reset to shipped file")
        status = gr.Markdown()
        # plumbing: shown by the header's "Technical details" switch (pet.ui.header)
        with gr.Group(visible=False, elem_id="pet-prompt-preview") as advanced:
            with gr.Row(equal_height=True):
                language = gr.Radio(list(LANGUAGES), value="zh", label="Preview language")
                preview = gr.Button("👀 Preview system prompt")
            prompt = gr.Textbox(label="System prompt (exactly as the model gets it)", lines=12, interactive=False,
                                buttons=["copy"])
        panel.advanced = [advanced]
        gr.Markdown("**Pets in this home**")
        with gr.Row():
            new_name = gr.Textbox(label="New pet's name")
            template = gr.Dropdown(shipped_personas(), label="From persona (empty: like this pet)", value=None)
            create = gr.Button("🥚 Adopt")
        with gr.Row():
            rename_to = gr.Textbox(label="Rename this pet to")
            rename = gr.Button("✏️ Rename")
        with gr.Row():
            card = gr.File(label="Import a Character Card V2 (.json / .png)", file_types=[".json", ".png"])
            import_card = gr.Button("🃏 Import card")
            export_card = gr.Button("🃏 Export this pet as a card")
            card_file = gr.File(label="Card", interactive=False)

    def refresh_picker(current: Session | None) -> gr.Dropdown:
        return gr.Dropdown(choices=pet_choices(app), value=page_pet(app, current).record.id)

    def fields(current: Session | None) -> list[str]:
        return panel.fields(current)

    def preview_prompt(*values: Any) -> str:
        *form_values, language_chosen, current = values
        return panel.preview(*form_values, language=language_chosen, session=current)

    def save_persona(*values: Any) -> str:
        *form_values, current = values
        return panel.save(*form_values, session=current)

    private: dict[str, Any] = dict(api_visibility="private")
    tab.select(fields, session, form, **private)
    preview.click(preview_prompt, [*form, language, session], prompt, api_name="persona_preview")
    save.click(save_persona, [*form, session], status, api_name="persona_save").then(
        refresh_picker, session, picker, **private)
    reset.click(panel.reset, session, status, api_name="persona_reset").then(
        fields, session, form, **private).then(refresh_picker, session, picker, **private)
    create.click(panel.create, [new_name, template, session], status, api_name="pet_create").then(
        refresh_picker, session, picker, **private)
    rename.click(panel.rename, [rename_to, session], status, api_name="pet_rename").then(
        refresh_picker, session, picker, **private).then(fields, session, form, **private)
    import_card.click(panel.import_card, card, status, api_name="pet_import_card").then(
        refresh_picker, session, picker, **private)
    export_card.click(panel.export_card, session, [card_file, status], api_name="pet_export_card")
    panel.refresh = dict(fn=fields, inputs=[session], outputs=form)
    return panel
