"""The Gradio chat. This package is the only one importing gradio; it only
adapts agent events to chat messages (pet.ui.render does the folding)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, cast

import gradio as gr  # Gradio's analytics are off: pet/__init__.py saw to it before this import

from pet.app import App, PetRuntime
from pet.persona.messages import chat_placeholder
from pet.persona.model import Persona
from pet.ui.arrivals import TOAST_CSS, build_arrivals
from pet.ui.face import AVATAR_DIR
from pet.ui.header import HEADER_CSS, AdvancedSwitch, brain_words
from pet.ui.inbox_tab import build_inbox_tab
from pet.ui.memory_tab import build_memory_tab
from pet.ui.persona_tab import build_persona_tab, pet_choices
from pet.ui.phone import PHONE_HEAD, build_phone_panel
from pet.ui.pond_tab import build_pond_tab
from pet.ui.render import TURNS_AT_ONCE
from pet.ui.session import ChatPage, Session
from pet.ui.trace_tab import build_trace_tab
from pet.ui.voice import VOICE_CSS, build_voice_panel

if TYPE_CHECKING:
    from fastapi import FastAPI


CSS = """
.pet-status { font-size: 0.85em; opacity: 0.8; }
.pet-conversations .wrap { flex-direction: column; max-height: 40vh; overflow-y: auto; flex-wrap: nowrap; }
""" + VOICE_CSS + HEADER_CSS + TOAST_CSS

# Wide screens: the chat and its box fill the first screen, the pet's face
# stands large beside it (the header's small card is for the phone); narrow
# ones keep the face in the header (pet.ui.phone sizes the chat there).
CHAT_HEAD = """<style>
/* the chat's own toolbar holds only a trash icon that would empty the view, not start a conversation */
#pet-chatbot .icon-button-wrapper.top-panel { display: none !important; }
/* faces big enough to see the pet's stage in them */
#pet-chatbot .avatar-container { width: 48px !important; height: 48px !important; }
/* a tool step is its own row, yet part of the answer under it: no second face, nothing to copy */
#pet-chatbot .bot-row:has(.thought-group) .avatar-container { visibility: hidden; }
#pet-chatbot .bot-row:has(.thought-group) + .message-buttons { display: none; }
@media (min-width: 641px) {
  /* room left for the header (the brain in words and one line of advice) and the box */
  #pet-chatbot { height: calc(100dvh - 330px) !important; min-height: 280px; }
  .pet-header-card { display: none !important; }
}
@media (max-width: 640px) {
  .pet-stage { display: none !important; }
}
</style>"""

#: seconds between two looks at the pet's face from an open page (its stage
#: changes when its adoption date is edited, or at midnight)
FACE_SECONDS = 2.0


def status_line(app: App, runtime: PetRuntime | None = None) -> str:
    """Which brain answers for the page's pet (default: the first pet), in
    words; the plumbing is behind pet.ui.header's switch."""
    return brain_words(app, (runtime or app.first_pet()).persona)


def _text_of(message: Any) -> str:
    """Gradio may hand the message as a string or as {"text": ..., "files": ...}."""
    if isinstance(message, dict):
        return str(message.get("text") or "")
    return "" if message is None else str(message)


@dataclass
class ChatParts:
    """The chat's components that other panels (voice) write to. The voice
    panel reads `chatbot` and `chatbot_state` only, as it did on a
    gr.ChatInterface."""

    chatbot: gr.Chatbot
    chatbot_state: gr.State


def build_ui(app: App) -> gr.Blocks:
    page = ChatPage(app)
    with gr.Blocks(title=app.first_pet().persona.full_name(), fill_height=True) as blocks:
        session = gr.State(None)  # this page's pet and conversation
        remembered = gr.BrowserState(None, storage_key="pet-chat-pet")  # the pet, across reloads
        with gr.Row(equal_height=False, elem_classes=["pet-header"]):
            card = gr.HTML(padding=False, elem_classes=["pet-header-card"])
            with gr.Column(scale=3):
                status = gr.Markdown(value=lambda: status_line(app), elem_classes=["pet-status-line"])
                advanced = AdvancedSwitch(app)
                build_phone_panel(app)
            with gr.Column(scale=1, min_width=220):
                # custom values allowed: pets made since the page loaded are checked on switching
                picker = gr.Dropdown(pet_choices(app), value=app.first_pet().record.id, label="Talking with / 正在和",
                                     show_label=False, container=False, interactive=True, allow_custom_value=True,
                                     elem_classes=["pet-picker"])
        with gr.Tabs():
            with gr.Tab("💬 Chat / 聊天", id="chat"):
                chat = _chat(app, page, session)
            # every tab shows and changes the page's own pet (its session), never another page's
            memories = build_memory_tab(app, session)
            pets = build_persona_tab(app, picker, session)
            build_pond_tab(app)
            inbox = build_inbox_tab(app, session)
            trace = build_trace_tab(app, session)
        # outside the tabs: a timer among them repeats a tab's label in the tab bar
        build_arrivals(app, chat.chatbot, inbox=inbox, target=page.resolve, target_inputs=[session],
                       history=page.history)
        advanced.controls([trace.tab, *pets.advanced])

        shows = [chat.chatbot, card, chat.stage, status, chat.listing, chat.face_key, chat.textbox]

        def show(current: Session | None) -> tuple:
            """Everything that shows the page's pet and conversation."""
            runtime, _ = page.resolve(current)
            persona = runtime.persona
            face = page.face(current)
            choices, value = page.listing(current)
            history: list[Any] = page.history(current)
            chatbot = gr.Chatbot(value=history, label=persona.full_name(), avatar_images=face.avatars,
                                 placeholder=chat_placeholder(persona))
            return (chatbot, face.card, face.stage, status_line(app, runtime), gr.Radio(choices, value=value),
                    face.key, gr.Textbox(placeholder=box_placeholder(persona)))

        def open_page(chosen: Any) -> tuple:
            opened = page.open(chosen)
            return opened, opened["pet"], gr.Dropdown(choices=pet_choices(app), value=opened["pet"])

        def warm(current: Session | None) -> None:
            """An embedded model reads the start of the page's prompt while the person looks."""
            app.warm_ahead(*page.resolve(current))

        opened = blocks.load(open_page, remembered, [session, remembered, picker], api_visibility="private")
        # the box opens once the page shows its conversation: a message typed before would be
        # wiped from view when the page's history arrives (seen in CI on a loaded machine)
        opened.then(show, session, shows, api_visibility="private").then(
            lambda: gr.Textbox(interactive=True), None, chat.textbox, api_visibility="private", queue=False)
        opened.then(warm, session, None, api_visibility="private", show_progress="hidden")

        def switch(pet_id: Any, current: Session | None) -> tuple:
            note = pets.switch(pet_id)
            if note.startswith("⚠️"):
                gr.Warning(note)
                return gr.skip(), gr.skip(), gr.skip(), current
            moved = page.switch_pet(pet_id)
            chatbot, header, _, line, *_ = show(moved)
            return chatbot, header, line, moved

        def remember(current: Session | None) -> Any:
            return (current or {}).get("pet")

        private: dict[str, Any] = dict(api_visibility="private")
        switched = picker.change(switch, [picker, session], [chat.chatbot, card, status, session],
                                 api_name="switch_pet")
        switched.then(remember, session, remembered, **private).then(show, session, shows, **private)
        # the other tabs show the new pet at once, also the one open now
        switched.then(**memories, **private)
        switched.then(**pets.refresh, **private)
        switched.then(inbox.refresh, session, list(inbox.components), **private)
        switched.then(**trace.refresh, **private)

        def look(current: Session | None, seen: str) -> tuple:
            """The face follows the pet's stage as soon as it changes."""
            if page.face_key(current) == seen:
                return gr.skip(), gr.skip(), gr.skip(), gr.skip()
            face = page.face(current)
            return gr.Chatbot(avatar_images=face.avatars), face.card, face.stage, face.key

        gr.Timer(FACE_SECONDS).tick(look, [session, chat.face_key], [chat.chatbot, card, chat.stage, chat.face_key],
                                    show_progress="hidden", api_visibility="private")
    return blocks


@dataclass
class _ChatTab:
    chatbot: gr.Chatbot
    textbox: gr.Textbox
    stage: gr.HTML
    listing: gr.Radio
    face_key: gr.State


def box_placeholder(persona: Persona) -> str:
    return f"和{persona.display_name('zh')}聊天… / Chat with {persona.display_name('en')}…"


def _chat(app: App, page: ChatPage, session: gr.State) -> _ChatTab:
    """The chat tab: the chat and its box, a stop button while the pet
    answers; beside it the pet's face and the list of conversations."""
    persona = app.first_pet().persona
    face_key = gr.State("")
    with gr.Row(equal_height=False, elem_classes=["pet-chat-row"]):
        with gr.Column(scale=4, min_width=320):
            chatbot = gr.Chatbot(
                label=persona.full_name(),
                height="70vh",
                elem_id="pet-chatbot",  # the page's CSS sizes it
                buttons=["copy"],
                feedback_options=None,
                # each message its own bubble: a reminder right after a reply is not read as part of it
                group_consecutive_messages=False,
                placeholder=chat_placeholder(persona),
            )
            with gr.Row(equal_height=True, elem_classes=["pet-input-row"]):
                textbox = gr.Textbox(
                    placeholder=box_placeholder(persona),
                    show_label=False, max_lines=8, submit_btn=True, scale=8, elem_id="pet-input",
                    interactive=False,  # until the page has loaded its conversation
                )
                stop = gr.Button("⏹ Stop", variant="stop", visible=False, scale=1, min_width=72,
                                 elem_id="pet-stop")
            mirror = gr.State([])  # what the voice panel last showed (it wrote ChatInterface's state before)
            build_voice_panel(app, cast(gr.ChatInterface, ChatParts(chatbot, mirror)), session)
        with gr.Column(scale=1, min_width=240, elem_classes=["pet-side"]):
            stage = gr.HTML(padding=False, elem_classes=["pet-stage"])
            new = gr.Button("➕ New conversation / 新对话", size="sm", elem_id="pet-new-conversation")
            listing = gr.Radio([], label="Conversations / 对话", elem_classes=["pet-conversations"],
                               elem_id="pet-conversations")
            with gr.Row(equal_height=True):
                title = gr.Textbox(placeholder="Name this conversation / 给对话起名", show_label=False, scale=3,
                                   elem_id="pet-conversation-title")
                rename = gr.Button("Rename / 改名", size="sm", scale=1, min_width=80)
            with gr.Row(equal_height=True):
                delete = gr.Button("🗑 Delete / 删除", size="sm", variant="stop", min_width=80)
                undo = gr.Button("↩ Undo delete / 撤销删除", size="sm", visible=False, min_width=80,
                                 elem_id="pet-undo-delete")
            note = gr.Markdown(elem_classes=["pet-status"])
    deleted = gr.State(None)
    said = gr.State("")

    def conversations(current: Session | None) -> gr.Radio:
        choices, value = page.listing(current)
        return gr.Radio(choices, value=value)

    # -- a turn: the box empties and the words show at once; the answer streams ----------
    def take(text: str, shown: list | None) -> tuple:
        return (gr.Textbox(value="", interactive=False), list(shown or []) + [{"role": "user", "content": text}],
                text, gr.Button(visible=True))

    def turn(text: str, current: Session | None, request: gr.Request) -> Iterator[tuple]:
        yield from page.turn(text, current, _page_key(request))

    def ended(current: Session | None) -> tuple:
        return gr.Textbox(interactive=True), gr.Button(visible=False), conversations(current)

    submitted = textbox.submit(take, [textbox, chatbot], [textbox, chatbot, said, stop], queue=False,
                               api_visibility="private")
    running = submitted.then(turn, [said, session], [chatbot, session], api_visibility="private",
                             show_progress="hidden", concurrency_limit=TURNS_AT_ONCE)
    running.then(ended, session, [textbox, stop, listing], api_visibility="private")

    def stop_turn(current: Session | None, request: gr.Request) -> tuple:
        page.stop(_page_key(request))
        return (page.history(current), *ended(current))

    stop.click(stop_turn, session, [chatbot, textbox, stop, listing], cancels=[running], api_visibility="private")

    # -- the API of the page (gradio_client): a turn, the history, a new conversation ---
    hidden = gr.Button(visible=False)
    answer = gr.JSON(visible=False)

    def api_turn(text: Any, current: Session | None, request: gr.Request) -> Iterator[tuple]:
        yield from page.turn(_text_of(text), current, _page_key(request), whole=False)

    hidden.click(api_turn, [textbox, session], [answer, session], api_name="chat", concurrency_limit=TURNS_AT_ONCE)
    hidden.click(page.history, session, answer, api_name="load_history")

    # -- the conversation list --------------------------------------------------------------
    shows = [chatbot, listing]

    def reshow(current: Session) -> tuple:
        return page.history(current), conversations(current)

    def start_new(current: Session | None) -> tuple:
        moved = page.new(current)
        return (moved, *reshow(moved), gr.Button(visible=False), "")

    new.click(start_new, session, [session, *shows, undo, note], api_name="new_conversation")

    def reopen(chosen: Any, current: Session | None) -> tuple:
        moved = page.reopen(current, chosen)
        return (moved, *reshow(moved))

    listing.input(reopen, [listing, session], [session, *shows], api_visibility="private")

    def rename_it(name: str, current: Session | None) -> tuple:
        line = page.rename(current, name)
        return line, conversations(current), "" if not line.startswith("⚠️") else gr.skip()

    rename.click(rename_it, [title, session], [note, listing, title], api_name="conversation_rename")
    title.submit(rename_it, [title, session], [note, listing, title], api_visibility="private")

    def delete_it(current: Session | None) -> tuple:
        moved, gone = page.delete(current)
        return (moved, *reshow(moved), gone, gr.Button(visible=True),
                "Deleted. Undo brings it back. / 已删除，可撤销。")

    delete.click(delete_it, session, [session, *shows, deleted, undo, note], api_name="conversation_delete")

    def undo_it(gone: Any, current: Session | None) -> tuple:
        moved = page.undo(current, gone)
        return (moved, *reshow(moved), None, gr.Button(visible=False), "")

    undo.click(undo_it, [deleted, session], [session, *shows, deleted, undo, note], api_name="conversation_undo")
    return _ChatTab(chatbot, textbox, stage, listing, face_key)


def _page_key(request: gr.Request | None) -> str:
    """The page a request comes from (a turn and its stop button share it)."""
    return str(getattr(request, "session_hash", None) or "")


def mount_ui(api: FastAPI, app: App) -> FastAPI:
    """Serve the chat at / on the given FastAPI app (one server, one port)."""
    # The avatars are served where they are, as images: a path given in an
    # update (the face following its stage) would otherwise be copied to
    # Gradio's cache, which serves an SVG as a download (a broken image).
    gr.set_static_paths([str(AVATAR_DIR)])
    return gr.mount_gradio_app(
        api,
        build_ui(app),
        path="/",
        server_name=app.settings.host,
        server_port=app.settings.port,
        footer_links=["api"],
        show_error=True,
        max_file_size=f"{app.settings.max_upload_mb}mb",
        css=CSS,
        head=CHAT_HEAD + PHONE_HEAD,  # the first screen, on a computer and on a phone
        allowed_paths=[str(AVATAR_DIR)],
        # LAN mode: Gradio itself also refuses anyone the gate did not let in
        auth_dependency=signed_in_user if app.settings.lan else None,
    )


def signed_in_user(request: Any) -> str | None:
    """The user the LAN gate (pet.api.gate) put on the request, if any."""
    user = request.scope.get("user")
    return user.display_name if getattr(user, "is_authenticated", False) else None
