"""Read a GGUF file's metadata (name, chat template, ...) without loading the model.

The header is: magic "GGUF", a version, the tensor and key counts, then the
key/value pairs, all little-endian. Values are read for scalars and strings;
arrays (the vocabulary, the merges) are stepped over, which is most of the
work: about 300,000 short strings for a Qwen model, read through a memory map.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
NAME_KEY = "general.name"
TEMPLATE_KEY = "tokenizer.chat_template"

# value type -> struct format of a fixed-size value
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


class GGUFError(ValueError):
    """The file is not a GGUF file this reader understands."""


class _CutOff(Exception):
    """A value runs past the end of the file."""


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    version: int
    #: scalar and string values by key; arrays are left out
    metadata: dict[str, Any]

    @property
    def name(self) -> str | None:
        value = self.metadata.get(NAME_KEY)
        return value if isinstance(value, str) else None

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get(TEMPLATE_KEY)
        return value if isinstance(value, str) and value.strip() else None


def read_gguf_info(path: Path) -> GGUFInfo:
    """The metadata of the GGUF file at `path`. Raises GGUFError (a ValueError)
    when the file is not GGUF or is cut off inside its header, OSError when it
    cannot be read."""
    path = Path(path)
    with path.open("rb") as stream:
        if stream.read(4) != MAGIC:
            raise GGUFError(f"{path} is not a GGUF file")
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as view:
            try:
                return _parse(path, view)
            except (_CutOff, struct.error, UnicodeDecodeError) as exc:
                raise GGUFError(f"{path}: the GGUF header is damaged or cut off ({exc})") from exc


def _parse(path: Path, data: mmap.mmap) -> GGUFInfo:
    (version,) = struct.unpack_from("<I", data, 4)
    if version not in SUPPORTED_VERSIONS:
        raise GGUFError(f"{path}: GGUF version {version} is not supported")
    _tensors, count = struct.unpack_from("<QQ", data, 8)
    offset = 24
    metadata: dict[str, Any] = {}
    for _ in range(count):
        key, offset = _string(data, offset)
        (kind,) = struct.unpack_from("<I", data, offset)
        offset += 4
        if kind == _ARRAY:
            offset = _skip_array(data, offset)
        else:
            metadata[key], offset = _value(data, offset, kind)
    return GGUFInfo(path, version, metadata)


def _string(data: mmap.mmap, offset: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("<Q", data, offset)
    start = offset + 8
    if start + length > len(data):
        raise _CutOff("a string runs past the end of the file")
    return data[start : start + length].decode("utf-8"), start + length


def _value(data: mmap.mmap, offset: int, kind: int) -> tuple[Any, int]:
    if kind == _STRING:
        return _string(data, offset)
    fmt = _SCALARS.get(kind)
    if fmt is None:
        raise GGUFError(f"unknown value type {kind}")
    return struct.unpack_from(fmt, data, offset)[0], offset + struct.calcsize(fmt)


def _skip_array(data: mmap.mmap, offset: int) -> int:
    kind, length = struct.unpack_from("<IQ", data, offset)
    offset += 12
    if kind == _STRING:
        for _ in range(length):
            (size,) = struct.unpack_from("<Q", data, offset)
            offset += 8 + size
        if offset > len(data):
            raise _CutOff("an array runs past the end of the file")
        return offset
    if kind == _ARRAY:
        for _ in range(length):
            offset = _skip_array(data, offset)
        return offset
    fmt = _SCALARS.get(kind)
    if fmt is None:
        raise GGUFError(f"unknown array element type {kind}")
    return offset + struct.calcsize(fmt) * length
