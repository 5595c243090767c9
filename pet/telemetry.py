"""Every dependency's telemetry off, before any dependency loads.

Libraries the pet carries report usage to their makers unless told not to:
Gradio (analytics and a version check), onnxruntime (faster-whisper's voice
activity filter; native code that resolves its collector's name in C++, so
`onnxruntime.disable_telemetry_events()` after the import is too late),
huggingface_hub (telemetry, and a fetch from the hub as it builds headers),
and OpenTelemetry exporters a person's environment may configure for
FastAPI. Each reads an environment variable, some only once as they load.
`pet/__init__.py` calls `switch_off()` before any other module of the pet
runs, and every entry point (run.py, `python -m pet`, the tests' conftest)
imports the pet package before anything else.
"""

from __future__ import annotations

import os

#: set whatever the environment says: the pet promises that no byte leaves the machine
OFF = {
    "GRADIO_ANALYTICS_ENABLED": "False",  # Gradio and gradio_client: analytics, version check
    "ORT_DISABLE_TELEMETRY": "1",  # onnxruntime's native events and its device id file
    "HF_HUB_DISABLE_TELEMETRY": "1",  # huggingface_hub
    "DISABLE_TELEMETRY": "1",  # the older Hugging Face name, still read
    "DO_NOT_TRACK": "1",  # the shared convention (huggingface_hub reads it too)
    "HF_HUB_DISABLE_UPDATE_CHECK": "1",  # huggingface_hub's "a newer version" hint
    "OTEL_SDK_DISABLED": "true",  # OpenTelemetry export, FastAPI's automatic one included
    "FASTAPI_OTEL_AUTO_CONFIGURE": "false",
    # The pet needs nothing from the Hugging Face hub (its models are bundled),
    # yet huggingface_hub asks it for a list of "agent harnesses" when it
    # merely builds request headers (gradio_client's Client does).
    "HF_HUB_OFFLINE": "1",
    # Gradio's run-history page offers to save runs to a Hugging Face bucket
    # with the caller's token: off, and nothing is recorded in the browser either.
    "GRADIO_RUN_HISTORY": "False",
}


def switch_off() -> None:
    """Turn every known telemetry switch off in this process (and its children)."""
    os.environ.update(OFF)
