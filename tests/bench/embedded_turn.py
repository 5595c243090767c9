"""A pet turn on the embedded model against a bare llama.cpp call on the same prompt.

    python tests/bench/embedded_turn.py [--rounds 5]

The pet turn is everything: recall, prompt, the grammar-guarded generation,
persistence. The bare call feeds the identical prompt tokens to the same
loaded llama.cpp model and samples the same number of tokens, no grammar.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

PROMPTS = [
    "hi! how was your day?",
    "tell me something about crayfish",
    "what should I cook tonight?",
    "I am tired after work",
    "do you like music?",
]


class Recorder:
    """Wraps the embedded model and keeps what the agent last sent."""

    def __init__(self, model):
        self.model = model
        self.label = model.label
        self.last = None
        self.usage = None

    def stream(self, messages, tools=(), **kwargs):
        self.last = (list(messages), list(tools))
        for part in self.model.stream(messages, tools, **kwargs):
            if hasattr(part, "usage"):
                self.usage = part.usage
            yield part

    def complete(self, messages, tools=(), **kwargs):
        return self.model.complete(messages, tools, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ["PET_HOME"] = tempfile.mkdtemp(prefix="pet-bench-")

    from pet.app import build
    from pet.brain.embedded import EmbeddedChatModel, _fit_prompt
    from pet.config import load_settings

    embedded = EmbeddedChatModel()
    embedded.load()
    recorder = Recorder(embedded)
    app = build(load_settings(), brain=recorder)
    llm = embedded._llm

    pet_times, bare_times, tokens = [], [], []
    for i in range(args.rounds * len(PROMPTS)):
        prompt = PROMPTS[i % len(PROMPTS)]
        conversation = app.new_conversation()  # same context size every round
        llm.reset()
        started = time.perf_counter()
        for _ in app.agent.run(conversation, prompt):
            pass
        pet = time.perf_counter() - started
        generated = recorder.usage.completion_tokens

        messages, tools = recorder.last

        def render(turns, tools=tools):
            return embedded.template.render(turns, tools)

        prompt_tokens = _fit_prompt(llm, render, messages,
                                    embedded.n_ctx - 256 - 64)
        llm.reset()
        started = time.perf_counter()
        count = 0
        for _token in llm.generate(prompt_tokens, temp=0.7, reset=True):
            count += 1
            if count >= generated:
                break
        bare = time.perf_counter() - started
        if i >= len(PROMPTS):  # the first round warms caches
            pet_times.append(pet)
            bare_times.append(bare)
            tokens.append(generated)

    print(f"prompt tokens ≈ {len(prompt_tokens)}, generated tokens median {statistics.median(tokens)}")
    print(f"pet turn    median {statistics.median(pet_times):.3f} s")
    print(f"bare call   median {statistics.median(bare_times):.3f} s")
    ratios = [p / b for p, b in zip(pet_times, bare_times)]
    print(f"ratio pet/bare: median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})")
    app.close()


if __name__ == "__main__":
    main()
