"""Choose the brain: the configured server when it answers, else embedded."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pet.brain.base import ChatModel
from pet.brain.probe import server_models
from pet.config import Settings
from pet.errors import BrainError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BrainChoice:
    model: ChatModel
    tier: str  # "server" or "embedded"
    reason: str


def server_brain(settings: Settings) -> ChatModel:
    from pet.brain.openai_compat import OpenAIChatModel

    return OpenAIChatModel(
        base_url=settings.base_url,
        model=settings.model,
        api_key=settings.api_key,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        retries=settings.retries,
        max_reply_tokens=settings.max_reply_tokens,
    )


def embedded_brain(settings: Settings) -> ChatModel:
    from pet.brain.embedded import EmbeddedChatModel
    from pet.brain.ladder import RUNGS

    path = Path(settings.embedded_model_path).expanduser() if settings.embedded_model_path else None
    return EmbeddedChatModel(
        model_path=path,
        n_ctx=settings.embedded_context,
        n_threads=settings.embedded_threads,
        rung=RUNGS[settings.embedded_model],
        home=settings.home,
        cache_folder=Path(settings.home) / "cache",
    )


#: the brains `--brain` names (besides "auto"), each made from the settings;
#: pet.config.BRAINS lists the same names for checking settings
BRAIN_KINDS: dict[str, Callable[[Settings], ChatModel]] = {"server": server_brain, "embedded": embedded_brain}


def choose_brain(settings: Settings) -> BrainChoice:
    """The brain `settings.brain` names; for "auto", the server when it
    answers and has the model, else the embedded model when installed."""
    make = BRAIN_KINDS.get(settings.brain)
    if make is not None:
        return BrainChoice(make(settings), settings.brain, f"chosen with --brain {settings.brain}")

    try:
        models = server_models(settings.base_url, timeout=settings.probe_timeout)
    except BrainError as exc:
        reason = f"no model server answered at {settings.base_url} within {settings.probe_timeout:g} s"
        log.info("brain auto: %s (%s)", reason, exc)
    else:
        if not models or settings.model in models or f"{settings.model}:latest" in models:
            return BrainChoice(server_brain(settings), "server", f"the server at {settings.base_url} answered")
        reason = (
            f"the server at {settings.base_url} has no model '{settings.model}' "
            f"(run `ollama pull {settings.model}` or pick one of: {', '.join(models[:5])})"
        )
    embedded = embedded_brain(settings)
    if not getattr(embedded, "available", lambda: True)():
        return BrainChoice(server_brain(settings), "server", reason + "; the embedded model is not installed either")
    return BrainChoice(embedded, "embedded", reason)
