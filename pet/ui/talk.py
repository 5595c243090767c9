"""Talk mode: one tap, and the microphone stays open. A small voice
detector in the page (the loudness of each 32 ms of sound against the
room's own level) finds where each utterance ends, sends it as a WAV, and
the turn runs and is spoken as in the voice panel; listening never stops.
Speaking while the pet's answer plays silences it at once, in the page
(barge-in), and that answer is stored as cut short.

The detector runs in the browser, not on the server: stopping the pet's
voice within a few hundred milliseconds cannot wait for a round trip. The
page needs a secure context for the microphone: localhost, or the HTTPS the
LAN mode serves.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from pet.events import Reply
from pet.private import private_dir
from pet.ui.render import CUT_SHORT, TURNS_AT_ONCE

log = logging.getLogger(__name__)

#: an utterance longer than this is cut and sent (a base64 WAV of 30 s at
#: 16 kHz is 1.3 MB: within the server's request limit)
MAX_UTTERANCE_MS = 30_000
#: the answers kept to mark as cut short; a barge-in is about a recent one
KEEP_TURNS = 50
WAV_PREFIX = "data:audio/wav;base64,"


class TalkBook:
    """Which stored answer each talk turn gave, so that the person talking
    over it marks the right one as cut short (the cut may arrive before the
    turn has finished storing its answer)."""

    def __init__(self, cut_short: Callable[[Reply, float | None], None]):
        self._cut_short = cut_short
        self._replies: dict[int, Reply] = {}
        self._early: dict[int, float | None] = {}
        self._lock = threading.Lock()

    def answered(self, turn: int, reply: Reply) -> None:
        with self._lock:
            self._replies[turn] = reply
            for old in sorted(self._replies)[:-KEEP_TURNS]:
                del self._replies[old]
            waiting = turn in self._early
            seconds = self._early.pop(turn, None)
        if waiting:
            self._cut_short(reply, seconds)

    def cut(self, turn: int, seconds: float | None) -> Reply | None:
        """Mark turn `turn`'s answer as cut short; it, or None when the turn
        has not stored its answer yet (it is marked when it does)."""
        with self._lock:
            reply = self._replies.get(turn)
            if reply is None:
                self._early[turn] = seconds
                for old in sorted(self._early)[:-KEEP_TURNS]:
                    del self._early[old]
                return None
        self._cut_short(reply, seconds)
        return reply


def mark_cut(history: list | None, reply: Reply) -> list | None:
    """The chat with "(cut short)" after the last bubble that shows `reply`;
    None when no bubble does."""
    chat = [dict(message) for message in history or []]
    wanted = reply.text.strip()
    for message in reversed(chat):
        if message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip() == wanted:
            message["content"] = content.rstrip() + CUT_SHORT
            return chat
        if isinstance(content, list):
            texts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"]
            if texts and "".join(part.get("text", "") for part in texts).strip() == wanted:
                message["content"] = [*content[:-1], {**content[-1], "text": content[-1].get("text", "") + CUT_SHORT}] \
                    if content[-1] in texts else [*content, {"type": "text", "text": CUT_SHORT}]
                return chat
    return None


def read_utterance(data: str, folder: Path) -> Path:
    """The page's utterance (a base64 WAV data URI) as a file in `folder`;
    raises ValueError when it is not one."""
    if not isinstance(data, str) or not data.startswith(WAV_PREFIX):
        raise ValueError("The talk mode sent no recording — tap Talk again.")
    try:
        audio = base64.b64decode(data[len(WAV_PREFIX):], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("The talk mode's recording arrived damaged — say it again.") from None
    handle, name = tempfile.mkstemp(prefix="talk-", suffix=".wav", dir=private_dir(folder))
    with os.fdopen(handle, "wb") as out:
        out.write(audio)
    return Path(name)


def read_cut(payload: str) -> tuple[int, float | None]:
    """(turn, seconds the page took to fall silent) from the page's barge-in note."""
    note = json.loads(payload)
    turn = int(note["turn"])
    ms = note.get("ms")
    return turn, (float(ms) / 1000 if isinstance(ms, (int, float)) else None)


def build_talk(voice: Any, chat: gr.ChatInterface, clip: gr.JSON, note: gr.Markdown, again: gr.Audio,
               turns: itertools.count, silence_ms: int, unlock: str, session: gr.State) -> None:
    """The Talk button and the hidden parts that carry utterances and
    barge-ins between the page's detector and the voice turns of `voice`
    (a VoiceChat), in the page's conversation (its `session`). `turns`
    numbers turns together with the microphone's."""
    book = TalkBook(voice.cut_short)
    folder = voice.app.settings.home / "talk"
    with gr.Row(equal_height=True):
        talk = gr.Button("🗣 Talk hands-free / 免提对话", elem_id="pet-talk", size="sm", scale=0, min_width=220)
        gr.HTML("<span id='pet-talk-state'></span>", elem_id="pet-talk-status")
    utterance = gr.Textbox(visible="hidden", elem_id="pet-talk-utterance")
    send = gr.Button(visible="hidden", elem_id="pet-talk-send")
    cut_note = gr.Textbox(visible="hidden", elem_id="pet-talk-cut-note")
    cut = gr.Button(visible="hidden", elem_id="pet-talk-cut")

    def talk_turn(data: str, history: list | None, current: Any) -> Iterator[tuple[Any, ...]]:
        try:
            path = read_utterance(data, folder)
        except (ValueError, OSError) as exc:
            yield gr.skip(), gr.skip(), f"⚠️ {exc}", gr.skip(), gr.skip()
            return
        turn, count = next(turns), itertools.count()
        try:
            for update in voice.respond(str(path), history, current):
                sound = {"turn": turn, "n": next(count), "src": WAV_PREFIX + base64.b64encode(update.sound).decode()} \
                    if update.sound else gr.skip()
                yield (update.messages, sound, update.note, update.answer if update.answer else gr.skip(),
                       update.session)
                if update.reply is not None:
                    book.answered(turn, update.reply)
        finally:
            path.unlink(missing_ok=True)

    def cut_short(payload: str, history: list | None) -> Any:
        try:
            reply = book.cut(*read_cut(payload))
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("talk mode: a barge-in note the page sent could not be read (%s): %r", exc, payload[:80])
            return gr.skip()
        marked = mark_cut(history, reply) if reply is not None else None
        return gr.skip() if marked is None else marked

    # the page's part alone, so that a tap never waits behind the models loading
    talk.click(None, None, None, js=talk_js(silence_ms, unlock), api_visibility="private", queue=False)
    talk.click(voice.warm_up, session, None, api_visibility="private", show_progress="hidden",
               trigger_mode="always_last")
    sent = send.click(talk_turn, [utterance, chat.chatbot, session], [chat.chatbot, clip, note, again, session],
                      js="(utterance, history, current) => [window.petTalk.take(), history, current]",
                      trigger_mode="once",
                      concurrency_limit=TURNS_AT_ONCE, api_visibility="private", show_progress="hidden")
    # the text chat answers on top of what it last saw: let it see the talk turn;
    # then the page sends the next utterance, on top of this turn's chat
    sent.then(lambda shown: shown, chat.chatbot, chat.chatbot_state, api_visibility="private", queue=False,
              js="(shown) => { window.petTalk.done(); return [shown]; }")
    cut.click(cut_short, [cut_note, chat.chatbot], chat.chatbot, js="(note, shown) => [window.petTalk.takeCut(), shown]",
              trigger_mode="multiple", api_visibility="private", show_progress="hidden", queue=False) \
        .then(lambda shown: shown, chat.chatbot, chat.chatbot_state, api_visibility="private", queue=False)


def talk_js(silence_ms: int, unlock: str) -> str:
    """The Talk button's tap: start (or stop) the page's listening loop.
    `unlock` is the voice panel's tap handler (it unlocks the player)."""
    return (TALK_JS.replace("SILENCE_MS_VALUE", str(silence_ms))
            .replace("MAX_UTTERANCE_MS_VALUE", str(MAX_UTTERANCE_MS))
            .replace("UNLOCK_FUNCTION", unlock.strip()))


TALK_JS = """
async () => {
  const S = window.petTalkSettings = Object.assign({
    frame: 512,            // samples a look (32 ms at 16 kHz)
    startMs: 96,           // this much loud sound starts an utterance
    bargeMs: 160,          // ... and while the pet speaks, stops it (louder, and a little longer)
    silenceMs: SILENCE_MS_VALUE,   // this much quiet ends one
    minSpeechMs: 250,      // shorter is a click or a cough
    prerollMs: 300,        // kept from before the start, so the first sound is not lost
    maxMs: MAX_UTTERANCE_MS_VALUE,
    minLevel: 0.01,        // RMS; about -40 dBFS
  }, window.petTalkSettings || {});
  const pet = window.petVoice = window.petVoice || {queue: [], player: new Audio(), busy: false};
  const show = (text) => { const el = document.querySelector('#pet-talk-state'); if (el) el.textContent = text; };
  const button = document.querySelector('#pet-talk');
  if (window.petTalk && window.petTalk.on) {
    window.petTalk.stop();
    if (button) button.textContent = '🗣 Talk hands-free / 免提对话';
    show('');
    return;
  }
  (UNLOCK_FUNCTION)();  // this tap lets the page play the answers
  const talk = window.petTalk = window.petTalk || {utterances: [], cuts: [], bargeIns: [], sent: 0, events: []};
  // one turn at a time: each is sent with the chat as the last turn left it
  talk.take = () => talk.utterances.shift() || '';
  talk.pump = () => {
    if (talk.busy || !talk.utterances.length) return;
    talk.busy = true;
    document.querySelector('#pet-talk-send').click();
  };
  talk.done = () => { talk.busy = false; if (talk.on) show('🎧 listening…'); talk.pump(); };
  talk.takeCut = () => talk.cuts.shift() || '';
  talk.log = (what) => talk.events.push([Math.round(performance.now()), what]);
  if (!navigator.mediaDevices || !window.isSecureContext) {
    show('⚠️ The microphone needs a secure page: open the pet on localhost, or over HTTPS (the LAN mode).');
    return;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia(
      {audio: {echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1}});
  } catch (error) {
    show('⚠️ The microphone could not be opened (' + error.name + '): allow it for this page, then tap Talk again.');
    return;
  }
  let context;
  try { context = new AudioContext({sampleRate: 16000}); } catch (error) { context = new AudioContext(); }
  await context.resume();
  const rate = context.sampleRate;
  const source = context.createMediaStreamSource(stream);
  const node = context.createScriptProcessor(S.frame, 1, 1);
  const mute = context.createGain();
  mute.gain.value = 0;  // the node must reach the output to run; the person must not hear themselves
  source.connect(node); node.connect(mute); mute.connect(context.destination);

  const frameMs = 1000 * S.frame / rate;
  let state = 'listening', floor = S.minLevel / 3, loudMs = 0, quietMs = 0, speechMs = 0, onset = 0;
  let chunks = [], preroll = [];
  const playing = () => pet.busy && !pet.player.paused;
  const wav = (parts) => {
    // 16-bit mono PCM at 16 kHz (averaging down when the context runs faster)
    const step = Math.max(1, Math.round(rate / 16000));
    const total = parts.reduce((n, p) => n + p.length, 0);
    const count = Math.floor(total / step);
    const out = new DataView(new ArrayBuffer(44 + 2 * count));
    const text = (at, s) => { for (let i = 0; i < s.length; i++) out.setUint8(at + i, s.charCodeAt(i)); };
    text(0, 'RIFF'); out.setUint32(4, 36 + 2 * count, true); text(8, 'WAVE'); text(12, 'fmt ');
    out.setUint32(16, 16, true); out.setUint16(20, 1, true); out.setUint16(22, 1, true);
    out.setUint32(24, rate / step, true); out.setUint32(28, 2 * rate / step, true);
    out.setUint16(32, 2, true); out.setUint16(34, 16, true); text(36, 'data'); out.setUint32(40, 2 * count, true);
    let at = 44, sum = 0, n = 0;
    for (const part of parts) for (let i = 0; i < part.length; i++) {
      sum += part[i]; n += 1;
      if (n === step) { const v = Math.max(-1, Math.min(1, sum / step)); out.setInt16(at, v * 32767, true); at += 2; sum = 0; n = 0; }
    }
    const bytes = new Uint8Array(out.buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return 'data:audio/wav;base64,' + btoa(binary);
  };
  const bargeIn = () => {
    const turn = pet.turn;
    pet.cut = turn; pet.queue = []; pet.player.pause(); pet.busy = false;
    const ms = performance.now() - onset;
    talk.bargeIns.push(ms);
    talk.log('barge-in ' + Math.round(ms) + ' ms');
    if (turn !== undefined) {
      talk.cuts.push(JSON.stringify({turn: turn, ms: ms}));
      document.querySelector('#pet-talk-cut').click();
    }
  };
  const finish = () => {
    state = 'listening';
    show('🎧 listening…');
    if (speechMs < S.minSpeechMs) { talk.log('too short'); chunks = []; return; }
    talk.utterances.push(wav(chunks));
    talk.sent += 1;
    talk.log('utterance ' + Math.round(speechMs) + ' ms');
    chunks = [];
    show('💭 thinking…');
    talk.pump();
  };
  node.onaudioprocess = (event) => {
    const samples = new Float32Array(event.inputBuffer.getChannelData(0));
    let energy = 0;
    for (let i = 0; i < samples.length; i++) energy += samples[i] * samples[i];
    const level = Math.sqrt(energy / samples.length);
    const speaking = playing();
    const threshold = Math.max(S.minLevel, floor * 3) * (speaking ? 2 : 1);
    const loud = level > threshold;
    if (state === 'listening') {
      preroll.push(samples);
      while (preroll.length * frameMs > S.prerollMs) preroll.shift();
      if (!loud) { floor = 0.95 * floor + 0.05 * level; loudMs = 0; return; }
      if (loudMs === 0) onset = performance.now() - frameMs;  // the loud sound began within the last look
      loudMs += frameMs;
      if (loudMs < (speaking ? S.bargeMs : S.startMs)) return;
      if (speaking) bargeIn();
      state = 'hearing'; show('🗣 hearing you…');
      chunks = preroll; preroll = []; speechMs = loudMs; quietMs = 0;
      talk.log('speech');
      return;
    }
    chunks.push(samples);
    speechMs += frameMs;
    quietMs = loud ? 0 : quietMs + frameMs;
    if (quietMs >= S.silenceMs || speechMs >= S.maxMs) { speechMs -= quietMs; finish(); }
  };
  talk.stop = () => {
    talk.on = false; node.onaudioprocess = null;
    stream.getTracks().forEach((track) => track.stop());
    context.close();
  };
  talk.on = true;
  talk.rate = rate;
  if (button) button.textContent = '⏹ Stop talking / 停止';
  show('🎧 listening…');
}
"""
