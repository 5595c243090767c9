"""Every dependency's telemetry is off before any dependency loads, whichever
way the pet starts. (tests/test_offline.py proves at the OS level that a
whole session, voice included, then tries no network at all.)"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from pet.telemetry import OFF

ROOT = Path(__file__).resolve().parents[1]
#: the values a person's environment might hold that would turn telemetry on
ON = {
    "GRADIO_ANALYTICS_ENABLED": "True",
    "ORT_DISABLE_TELEMETRY": "0",
    "HF_HUB_DISABLE_TELEMETRY": "0",
    "DISABLE_TELEMETRY": "0",
    "DO_NOT_TRACK": "0",
    "HF_HUB_DISABLE_UPDATE_CHECK": "0",
    "OTEL_SDK_DISABLED": "false",
    "FASTAPI_OTEL_AUTO_CONFIGURE": "true",
    "HF_HUB_OFFLINE": "0",
    "GRADIO_RUN_HISTORY": "True",
}
REPORT = """
import json, os, sys
before = set(sys.modules)
import {module}
loaded = sorted(name for name in set(sys.modules) - before
                if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "pet")
print(json.dumps({{"env": {{k: os.environ.get(k) for k in {names!r}}}, "loaded": loaded}}))
"""


def run_child(module: str, env: dict[str, str]) -> dict:
    names = sorted(OFF)
    base = {k: v for k, v in os.environ.items() if k not in names}
    code = REPORT.format(module=module, names=names)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True,
                         text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_every_known_switch_is_listed_with_its_on_value():
    assert set(ON) == set(OFF)


def test_importing_the_pet_switches_everything_off_before_any_dependency_loads():
    for module in ("pet", "pet.cli"):
        report = run_child(module, ON)
        assert report["env"] == OFF, module
        # nothing but the standard library was loaded on the way: the switches came first
        assert report["loaded"] == [], module


def first_import(path: Path) -> str:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            return node.module or ""
        if isinstance(node, ast.Import):
            return node.names[0].name
    return ""


def test_every_entry_point_imports_the_pet_before_anything_else():
    for entry in ("run.py", "pet/__main__.py", "tests/conftest.py"):
        assert first_import(ROOT / entry).split(".")[0] == "pet", entry
    # and the package itself turns telemetry off before it imports anything more
    assert first_import(ROOT / "pet" / "__init__.py") == "pet.telemetry"


def _means(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def test_this_test_process_has_them_off_too():
    # Gradio's import writes HF_HUB_DISABLE_TELEMETRY=True: the same switch, another spelling
    for name, value in OFF.items():
        assert _means(os.environ[name]) == _means(value), name
