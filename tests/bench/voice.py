"""Voice turn latency with the embedded brain: from the end of a spoken
question (the recording is complete) to the first audio of the answer.

    python tests/bench/voice.py [--rounds 5] [--language en]

The question is about 5 seconds of espeak-ng speech. Each round runs the
whole voice turn in a fresh conversation: read the recording, transcribe it
(Whisper base, int8), the pet's turn on SmolLM2, and text to speech of each
sentence as it completes. The first round loads the models and is left out.
Target: median first audio at most 3 s on a 2-core laptop CPU.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_SECONDS = 3.0
#: about five seconds each when espeak-ng says them; a different one each
#: round, so the model cannot reuse the last round's prompt whole
MORE_QUESTIONS = (
    "Good morning little friend. Did you sleep well last night? What did you dream about?",
    "I just came home from work and I am very tired. Can you cheer me up with a joke?",
    "Tell me, what is your favourite food, and where do crayfish like to live?",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--language", choices=("en", "zh"), default="en")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pet-bench-") as folder:  # holds a 145 MB model copy
        run(args, Path(folder))


def run(args: argparse.Namespace, home: Path) -> None:
    os.environ.update(PET_HOME=str(home), PET_BRAIN="embedded", PET_GREETING="off", PET_SCHEDULER="off",
                      HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False")

    from speechclips import CHINESE_QUESTION, ENGLISH_QUESTION, espeak_clip, read_wav

    from pet.app import build
    from pet.config import load_settings
    from pet.speech.turn import Timings, Voice

    texts = (ENGLISH_QUESTION, *MORE_QUESTIONS) if args.language == "en" else (CHINESE_QUESTION,)
    questions = [espeak_clip(text, args.language, home / f"question{n}.wav") for n, text in enumerate(texts)]
    lengths = [len(samples) / rate for samples, rate in map(read_wav, questions)]
    app = build(load_settings())
    voice = Voice(home)

    rounds: list[Timings] = []
    heard, said = [], ""
    for i in range(args.rounds + 1):
        question = questions[i % len(questions)]
        conversation = app.new_conversation()  # the same context size every round
        timings, spoken = None, []
        for event in voice.turn(app.agent, conversation, question, args.language, traces=app.traces):
            kind = type(event).__name__
            if kind == "Heard" and i < len(questions):
                heard.append(event.transcript.text)
            elif kind == "Said":
                spoken.append(event.speech.text)
            elif kind == "Rejected":
                sys.exit(f"the question was refused: {event.reason}")
            elif isinstance(event, Timings):
                timings = event
        if i > 0:  # the first round loads Whisper, espeak-ng and SmolLM2
            rounds.append(timings)
        said = spoken[0] if spoken else "(nothing spoken)"

    print(f"questions: {', '.join(f'{n:.1f}' for n in lengths)} s of speech; heard:")
    for text in heard:
        print(f"  {text!r}")
    print(f"first spoken sentence (last round): {said!r}")
    print(f"rounds: {len(rounds)} (after one warm-up), load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for stage in ("transcription", "first_token", "first_audio", "total"):
        values = [getattr(t, stage) for t in rounds if getattr(t, stage) is not None]
        if values:
            print(f"  {stage:<14} median {statistics.median(values):6.2f} s   "
                  f"(min {min(values):.2f}, max {max(values):.2f})")
    firsts = [t.first_audio for t in rounds if t.first_audio is not None]
    if firsts:
        median = statistics.median(firsts)
        verdict = "meets" if median <= TARGET_SECONDS else "misses"
        print(f"end of question -> first audio: median {median:.2f} s ({verdict} the {TARGET_SECONDS:g} s target)")
    app.close()


if __name__ == "__main__":
    main()
