"""Cheap checks of an OpenAI-compatible model server, stdlib only.

Brain selection and `doctor` call these before anything imports the openai
SDK, so this module must stay light: urllib and json, nothing else.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from http.client import HTTPException

from pet.errors import BrainResponseError, BrainUnavailable

DEFAULT_PROBE_TIMEOUT = 2.0

# The model server is local or on the LAN: never send its traffic through an
# HTTP proxy picked up from the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def no_server_message(base_url: str) -> str:
    """What to tell the person when nothing answers at `base_url`."""
    return (
        f"No model server answers at {base_url} — start Ollama (`ollama serve`) "
        "or run with --brain embedded"
    )


def _get_models(base_url: str, timeout: float) -> object:
    url = base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with _opener.open(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as err:
        raise BrainResponseError(
            f"The model server at {base_url} answered {err.code} to GET /models — "
            "check the address (OpenAI-compatible servers usually end in /v1)"
        ) from err
    except (urllib.error.URLError, OSError, HTTPException, ValueError) as err:
        # URLError covers refused connections and unknown hosts; OSError
        # covers timeouts and resets; ValueError a malformed URL.
        raise BrainUnavailable(no_server_message(base_url)) from err
    try:
        return json.loads(body)
    except ValueError as err:
        raise BrainResponseError(
            f"The server at {base_url} answered GET /models with something that is not JSON — "
            "is this really an OpenAI-compatible model server?"
        ) from err


def server_answers(base_url: str, timeout: float = DEFAULT_PROBE_TIMEOUT) -> bool:
    """True when `{base_url}/models` answers 2xx with JSON within `timeout`."""
    try:
        _get_models(base_url, timeout)
    except (BrainUnavailable, BrainResponseError):
        return False
    return True


def server_models(base_url: str, timeout: float = DEFAULT_PROBE_TIMEOUT) -> list[str]:
    """The model ids the server lists at `{base_url}/models`.

    Raises `BrainUnavailable` when nothing answers and `BrainResponseError`
    when the answer is an error or not a model list.
    """
    data = _get_models(base_url, timeout)
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BrainResponseError(f"The server at {base_url} answered GET /models without a model list.")
    return [str(entry["id"]) for entry in entries if isinstance(entry, dict) and entry.get("id")]
