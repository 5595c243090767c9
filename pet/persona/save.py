"""Write a persona as a TOML file that `load_persona` reads back equal.

No TOML writer library is installed, so this is a small emitter for the
shapes a persona file has: strings, whole numbers, dates, lists of strings,
tables of languages and arrays of tables whose values are those.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from pet.config import is_safe_id
from pet.errors import PersonaError
from pet.persona.model import Persona, load_persona, persona_data

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"a persona file holds no {type(value).__name__} values")


def _pairs(table: dict[str, Any]) -> list[str]:
    """`key = value` lines; a nested table of languages becomes dotted keys."""
    lines = []
    for key, value in table.items():
        if isinstance(value, dict):
            lines += [f"{key}.{sub} = {toml_value(item)}" for sub, item in value.items()]
        else:
            lines.append(f"{key} = {toml_value(value)}")
    return lines


def dumps(data: dict[str, Any]) -> str:
    """A persona table (see `persona_data`) as TOML text."""
    top = {k: v for k, v in data.items() if not isinstance(v, (dict, list)) or k == "languages"}
    blocks = ["\n".join(_pairs(top))]
    for key, value in data.items():
        if isinstance(value, dict):
            blocks.append(f"[{key}]\n" + "\n".join(_pairs(value)))
        elif isinstance(value, list) and key != "languages":
            blocks += [f"[[{key}]]\n" + "\n".join(_pairs(item)) for item in value]
    return "\n\n".join(blocks) + "\n"


def persona_toml(persona: Persona) -> str:
    return dumps(persona_data(persona))


def save_persona(persona: Persona, folder: Path, *, overwrite: bool = False) -> Path:
    """Write `persona` to folder/<id>.toml (e.g. $PET_HOME/personas) and
    check that it reads back equal. Refuses to replace a file unless told to."""
    if not is_safe_id(persona.id):
        raise PersonaError(f"{persona.id!r} cannot name a persona file: use letters, digits, - and _")
    path = Path(folder) / f"{persona.id}.toml"
    if path.exists() and not overwrite:
        raise PersonaError(f"{path} already exists: choose another id for this pet or replace the file on purpose")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(persona_toml(persona), encoding="utf-8")
    os.replace(partial, path)  # a reader never sees half a file
    if load_persona(str(path)) != persona:
        raise PersonaError(f"{path}: the written persona does not read back the same (a bug in pet.persona.save)")
    return path
