"""The Gradio chat. This package is the only one importing gradio; it only
adapts agent events to chat messages (pet.ui.render does the folding)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

import gradio as gr  # Gradio's analytics are off: pet/__init__.py saw to it before this import

from pet.app import App
from pet.events import ConversationStarted
from pet.persona.growth import days_together
from pet.persona.messages import chat_placeholder
from pet.ui.arrivals import build_arrivals
from pet.ui.face import AVATAR_DIR, chat_avatars, growth_card_html
from pet.ui.header import HEADER_CSS, AdvancedSwitch, brain_words
from pet.ui.inbox_tab import build_inbox_tab
from pet.ui.memory_tab import build_memory_tab
from pet.ui.persona_tab import build_persona_tab, pet_choices
from pet.ui.phone import PHONE_HEAD, build_phone_panel
from pet.ui.pond_tab import build_pond_tab
from pet.ui.render import TURNS_AT_ONCE, apply_event, for_gradio, history_messages, steps_language
from pet.ui.trace_tab import build_trace_tab
from pet.ui.voice import VOICE_CSS, build_voice_panel

if TYPE_CHECKING:
    from fastapi import FastAPI


CSS = """
.pet-status { font-size: 0.85em; opacity: 0.8; }
""" + VOICE_CSS + HEADER_CSS


def status_line(app: App) -> str:
    """Which brain answers, in words (the plumbing is behind pet.ui.header's switch)."""
    return brain_words(app)


def _text_of(message: Any) -> str:
    """Gradio may hand the message as a string or as {"text": ..., "files": ...}."""
    if isinstance(message, dict):
        return str(message.get("text") or "")
    return "" if message is None else str(message)


def build_ui(app: App) -> gr.Blocks:
    def respond(message: Any, history: list) -> Iterator[list[dict]]:
        runtime, conversation = app.turn_target()
        text = _text_of(message)
        language = steps_language(text, runtime.persona.languages[0])
        shown: list[dict] = []
        for event in runtime.agent.run(conversation, text):
            if isinstance(event, ConversationStarted):
                app.switch_conversation(event.conversation_id)
            apply_event(shown, event, runtime.tools, language)
            yield for_gradio(shown)
        if not shown:  # nothing came back at all; say so rather than show nothing
            yield [{"role": "assistant", "content": "…"}]

    def load_history() -> list[dict]:
        runtime, conversation = app.turn_target()
        stored = app.conversations.history(conversation)
        return for_gradio(history_messages(stored, runtime.tools, runtime.persona.languages[0]))

    def new_conversation() -> None:
        app.new_conversation()

    name = app.persona.full_name()
    with gr.Blocks(title=name, fill_height=True) as blocks:
        with gr.Row(equal_height=False, elem_classes=["pet-header"]):
            card = gr.HTML(value=lambda: face_card(app), padding=False)
            with gr.Column(scale=2):
                status = gr.Markdown(value=lambda: status_line(app), elem_classes=["pet-status-line"])
                advanced = AdvancedSwitch(app)
                # custom values allowed: pets made since the page loaded are checked by switch_pet
                picker = gr.Dropdown(pet_choices(app), value=app.pet.id, label="Talking with / 正在和",
                                     interactive=True, allow_custom_value=True, elem_classes=["pet-picker"])
                build_phone_panel(app)
        with gr.Tabs():
            with gr.Tab("💬 Chat / 聊天", id="chat"):
                chat = _chat(app, respond, new_conversation, load_history)
                chatbot = chat.chatbot
            build_memory_tab(app)
            pets = build_persona_tab(app, picker)
            build_pond_tab(app)
            inbox = build_inbox_tab(app)
            trace = build_trace_tab(app)
        # outside the tabs: a timer among them repeats a tab's label in the tab bar
        build_arrivals(app, chatbot, inbox=inbox, mirrors=[chat.chatbot_state])
        advanced.controls([trace.tab])

        def switch(pet_id: Any) -> tuple:
            note = pets.switch(pet_id)
            if note.startswith("⚠️"):
                gr.Warning(note)
            return chat_state(app, load_history()), face_card(app), status_line(app)

        picker.change(switch, picker, [chatbot, card, status], api_name="switch_pet")
        blocks.load(lambda: gr.Dropdown(choices=pet_choices(app), value=app.pet.id), None, picker, api_visibility="private")
    return blocks


def face_card(app: App) -> str:
    persona = app.persona
    return growth_card_html(persona, app.adopted_on, app.clock(), persona.languages[0])


def chat_state(app: App, history: list[Any]) -> gr.Chatbot:
    """The chat of the current pet, with its face at its growth stage."""
    days = days_together(app.adopted_on, app.clock().astimezone(app.persona.zone()))
    return gr.Chatbot(value=history, label=app.persona.full_name(),
                      avatar_images=chat_avatars(app.persona, days))


def _chat(app: App, respond, new_conversation, load_history) -> gr.ChatInterface:
    """The chat tab: history restored on load; the trash icon starts a new conversation."""
    name = app.persona.full_name()
    days = days_together(app.adopted_on, app.clock().astimezone(app.persona.zone()))
    chatbot = gr.Chatbot(
        value=load_history,
        label=name,
        avatar_images=chat_avatars(app.persona, days),
        height="70vh",
        elem_id="pet-chatbot",  # the phone CSS sizes it
        buttons=["copy"],
        feedback_options=None,
        placeholder=chat_placeholder(app.persona),
    )
    chat = gr.ChatInterface(
        respond,
        chatbot=chatbot,
        textbox=gr.Textbox(
            placeholder=f"和{app.persona.display_name('zh')}聊天… / Chat with {app.persona.display_name('en')}…",
            max_lines=8,
            submit_btn=True,
        ),
        api_name="chat",
        fill_height=True,
        # Gradio's default (1) made every tab wait while one turn waited on a hung
        # model; the agent already keeps one turn at a time per conversation.
        concurrency_limit=TURNS_AT_ONCE,
    )
    chatbot.clear(new_conversation)
    build_voice_panel(app, chat)
    return chat


def mount_ui(api: FastAPI, app: App) -> FastAPI:
    """Serve the chat at / on the given FastAPI app (one server, one port)."""
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
        head=PHONE_HEAD,  # the phone layout
        allowed_paths=[str(AVATAR_DIR)],
        # LAN mode: Gradio itself also refuses anyone the gate did not let in
        auth_dependency=signed_in_user if app.settings.lan else None,
    )


def signed_in_user(request: Any) -> str | None:
    """The user the LAN gate (pet.api.gate) put on the request, if any."""
    user = request.scope.get("user")
    return user.display_name if getattr(user, "is_authenticated", False) else None
