"""Hands-free talk in a real browser: one tap on Talk, then three spoken
utterances reach headless Chromium's fake microphone. The page's voice
detector sends each when it ends, each is answered aloud, and listening goes
on; the third comes while the second answer is playing, silences it at once
(barge-in), and that answer is stored as cut short. On a desktop over
http://127.0.0.1 and on a phone over the LAN's HTTPS (the microphone needs a
secure page). Screenshots go to tests/artifacts/."""

from __future__ import annotations

from collections import Counter

import pytest
from browser import ARTIFACTS
from talkclips import ANSWERS, TalkResult, talk_sessions_at_once

from pet.speech import models
from pet.speech.tts import espeak_installed
from pet.ui.talk import TalkBook, mark_cut, read_cut, read_utterance

pytestmark = pytest.mark.slow


@pytest.fixture
def needs_voice():
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None or not espeak_installed():
        pytest.skip("voice needs the Whisper base packages and espeak-ng")


def check_conversation(result: TalkResult) -> None:
    assert result.sent == 3, result.events
    chat = result.chat.lower()
    # what was heard (Whisper hears espeak-ng's robotic voice a little differently each time, and a
    # loaded machine drops some of the fake microphone's audio: "What is the web?" in one CI run);
    # "what is the" is the first utterance's alone
    assert ("weather" in chat or "like today" in chat or "what is the" in chat) and ("story" in chat or "pond" in chat) \
        and ("question" in chat or "wait" in chat)
    assert ANSWERS[0] in result.chat and ANSWERS[2] in result.chat

    # one interruption, and it was the second answer that was talked over
    assert len(result.barge_in_ms) == 1, (result.events, result.plays)
    assistant = [status for role, _, status in result.stored if role == "assistant"]
    assert assistant == ["ok", "partial", "ok"], result.stored
    assert "barge_in_stop" in result.stages[1] and "barge_in_stop" not in result.stages[0]
    assert result.chat.count("(cut short)") == 1
    assert result.chat.index("(cut short)") < result.chat.index(ANSWERS[2])

    # the sentences each turn played: all of the first and third, only the start of the second
    played = Counter(turn for turn, src, _ in result.plays if turn is not None and src.startswith("data:audio/wav"))
    first, second, third = sorted(played)
    assert played[first] == 2 and played[third] == 2, result.plays
    assert 1 <= played[second] < ANSWERS[1].count(". ") + 1, result.plays


class BothSessions:
    """The desktop and the phone session run side by side, once, by whichever
    of the two tests asks first (inside that test, its fixtures in place);
    each test then checks only its own session's result."""

    def __init__(self, folder) -> None:
        self.folder = folder
        self.outcome: dict[str, TalkResult | BaseException] | None = None

    def result(self, name: str) -> TalkResult:
        if self.outcome is None:
            ARTIFACTS.mkdir(exist_ok=True)
            self.outcome = talk_sessions_at_once(self.folder, {"desktop": ARTIFACTS / "talk-desktop.png",
                                                               "phone": ARTIFACTS / "talk-phone.png"})
        outcome = self.outcome[name]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    return BothSessions(tmp_path_factory.mktemp("talk"))


def test_talking_hands_free_on_a_desktop(needs_voice, sessions):
    check_conversation(sessions.result("desktop"))


def test_talking_hands_free_on_a_phone_over_the_lan(needs_voice, sessions):
    check_conversation(sessions.result("phone"))


# -- the server's side, without a browser ---------------------------------------------------


def test_a_cut_that_arrives_before_the_answer_is_stored_still_marks_it():
    from pet.events import Reply

    marked: list[tuple[int | None, float | None]] = []
    book = TalkBook(lambda reply, seconds: marked.append((reply.message_id, seconds)))
    book.cut(7, 0.21)  # the page fell silent while turn 7 was still being written
    assert marked == []
    book.answered(7, Reply("Once upon a time.", message_id=41))
    book.answered(8, Reply("Sure.", message_id=43))
    book.cut(8, None)
    assert marked == [(41, 0.21), (43, None)]


def test_the_cut_answer_is_marked_in_the_chat_as_the_page_holds_it():
    from pet.events import Reply

    reply = Reply("Once upon a time. A frog came.", message_id=5)
    shown = [{"role": "user", "content": "a story please"},
             {"role": "assistant", "content": "Once upon a time. A frog came."},
             {"role": "user", "content": [{"type": "text", "text": "wait"}]}]
    marked = mark_cut(shown, reply)
    assert marked is not None and marked[1]["content"] == "Once upon a time. A frog came. *(cut short)*"
    assert shown[1]["content"] == "Once upon a time. A frog came."  # the page's copy is left alone
    as_parts = [{"role": "assistant", "content": [{"type": "text", "text": "Once upon a time. A frog came."}]}]
    assert mark_cut(as_parts, reply)[0]["content"][-1]["text"].endswith("*(cut short)*")
    assert mark_cut([{"role": "assistant", "content": "Something else."}], reply) is None


def test_what_the_page_sends_is_checked(tmp_path):
    with pytest.raises(ValueError, match="no recording"):
        read_utterance("hello", tmp_path)
    with pytest.raises(ValueError, match="damaged"):
        read_utterance("data:audio/wav;base64,@@@", tmp_path)
    saved = read_utterance("data:audio/wav;base64,UklGRg==", tmp_path)
    assert saved.read_bytes() == b"RIFF" and saved.parent == tmp_path
    assert read_cut('{"turn": 3, "ms": 180}') == (3, 0.18)
    with pytest.raises(ValueError):
        read_cut("not json")
