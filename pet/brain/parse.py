"""Lenient JSON repair and tool-call parsing for small local models.

Small models often write a tool call as text instead of using the server's
native tool API, and their JSON is often broken: trailing commas, single or
smart quotes, unquoted keys and values, comments, prose around it, output cut
off before the closing braces. `repair_json` reads such text with a small
tolerant parser; `extract_tool_calls` finds the calls in a reply; and
`looks_like_tool_call_start` tells a streaming agent where to stop showing text.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection, Iterator
from typing import Any

from pet.events import ToolCall

log = logging.getLogger(__name__)

#: deeper nesting than this is refused rather than risking a RecursionError
MAX_DEPTH = 100
#: how many possible object starts one text is searched from; bounds the work
MAX_CANDIDATES = 64

# A string opened by the key may be closed by any of the values. Plain `"`
# closes only on `"`, so curly quotes inside a normal string (common in
# Chinese) stay part of the text.
_QUOTES: dict[str, str] = {
    '"': '"',
    "'": "'",
    "\u201c": "\u201d\u201c\"",  # “ … ”
    "\u201d": "\u201d\u201c\"",
    "\u2018": "\u2019\u2018",  # ‘ … ’
    "\u2019": "\u2019\u2018",
}
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f",
            "n": "\n", "r": "\r", "t": "\t"}
_LITERALS: dict[str, Any] = {"true": True, "True": True, "false": False,
                             "False": False, "null": None, "None": None}
# Leading zeros ("0123") are not numbers in JSON; keep such values as text.
_NUMBER = re.compile(r"[-+]?(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"[-+]?\d+")

_Q = "\"'\u201c\u201d\u2018\u2019"
# After a `,` or newline inside an unquoted value: does a new member (`key:`, a
# quoted key) or the end of the object follow? If not, the comma belongs to
# the value ("tea, milk").
_NEXT_MEMBER = re.compile(
    rf"\s*(?:$|[}}\]{_Q}]|//|/\*|#|[^\s{_Q}:,{{}}\[\]]{{1,80}}\s*:)"
)
# Where an object or list plausibly starts: `{` followed by a key, `}` or a
# comment, or `[` followed by `{` / `[`. Skips prose braces such as ":{ oh".
_CANDIDATE = re.compile(
    rf"\{{(?=\s*(?:$|[{_Q}}}]|//|/\*|#|[^\s{_Q}:,{{}}\[\]]+\s*:))|\[(?=\s*[{{\[])"
)
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*")


class JSONRepairError(ValueError):
    """The text holds nothing that can be read as a JSON object or list."""


class _Missing:
    """Marks a value that is absent (`{"a": }`), as opposed to null."""


_MISSING = _Missing()


class _TolerantParser:
    """A forgiving recursive-descent JSON reader over one text.

    It never fails on bad syntax: it guesses, and closes whatever is still
    open at the end of the text. Each loop consumes at least one character,
    so it always terminates.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.pos = 0

    def parse_at(self, pos: int) -> tuple[Any, int]:
        """Read one value starting at `pos`; return it and where it ended."""
        self.pos = pos
        value = self._value(0, "top")
        return (None if value is _MISSING else value), self.pos

    # --- whitespace and comments -----------------------------------------

    def _skip(self) -> None:
        text, n = self.text, self.n
        while self.pos < n:
            c = text[self.pos]
            if c.isspace() or c == "\ufeff":
                self.pos += 1
            elif c == "#" or text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                self.pos = n if end < 0 else end + 2
            else:
                return

    # --- values ------------------------------------------------------------

    def _value(self, depth: int, context: str) -> Any:
        self._skip()
        if self.pos >= self.n:
            return _MISSING
        c = self.text[self.pos]
        if c == "{":
            return self._object(depth + 1)
        if c == "[":
            return self._array(depth + 1)
        if c in _QUOTES:
            return self._string()
        if c in ",:}]":
            return _MISSING
        return self._bare(context)

    def _object(self, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise JSONRepairError(f"The JSON is nested more than {MAX_DEPTH} levels deep.")
        self.pos += 1  # the "{"
        result: dict[str, Any] = {}
        while True:
            self._skip()
            if self.pos >= self.n:
                break  # truncated output: close the object here
            c = self.text[self.pos]
            if c == "}":
                self.pos += 1
                break
            if c == "]":
                break  # a stray "]" closes an outer list; leave it for that list
            if c == ",":
                self.pos += 1
                continue
            start = self.pos
            key = self._key(depth)
            self._skip()
            if self.pos < self.n and self.text[self.pos] == ":":
                self.pos += 1
                value = self._value(depth, "object")
            elif self.pos >= self.n or self.text[self.pos] in ",}]":
                value = _MISSING  # a key with no value, e.g. cut off
            else:
                value = self._value(depth, "object")  # the colon was forgotten
            if key is not None and value is not _MISSING:
                result[key] = value
            if self.pos == start:
                self.pos += 1
        return result

    def _key(self, depth: int) -> str | None:
        c = self.text[self.pos]
        if c in _QUOTES:
            return self._string()
        if c in "{[":
            self._value(depth, "object")  # a value where a key belongs: drop it
            return None
        start = self.pos
        while self.pos < self.n and self.text[self.pos] not in ":,{}[]":
            self.pos += 1
        key = self.text[start:self.pos].strip()
        return key or None

    def _array(self, depth: int) -> list[Any]:
        if depth > MAX_DEPTH:
            raise JSONRepairError(f"The JSON is nested more than {MAX_DEPTH} levels deep.")
        self.pos += 1  # the "["
        result: list[Any] = []
        while True:
            self._skip()
            if self.pos >= self.n:
                break
            c = self.text[self.pos]
            if c == "]":
                self.pos += 1
                break
            if c == "}":
                break  # belongs to an outer object
            if c == ",":
                self.pos += 1
                continue
            start = self.pos
            value = self._value(depth, "array")
            if value is not _MISSING:
                result.append(value)
            if self.pos == start:
                self.pos += 1
        return result

    def _string(self) -> str:
        text, n = self.text, self.n
        closers = _QUOTES[text[self.pos]]
        self.pos += 1
        out: list[str] = []
        while self.pos < n:
            c = text[self.pos]
            if c == "\\":
                out.append(self._escape())
            elif c in closers and self._closes_string(self.pos + 1):
                self.pos += 1
                return "".join(out)
            else:
                out.append(c)  # includes raw newlines and unescaped inner quotes
                self.pos += 1
        return "".join(out)  # truncated: the string runs to the end

    def _closes_string(self, pos: int) -> bool:
        """Is a quote at pos-1 the end of the string, or a quote inside it?

        In valid JSON a closing quote is always followed by `,` `:` `}` `]` or
        the end, so this never misreads valid input; it lets `"it's"` in a
        single-quoted string and `"he said "hi" to me"` survive.
        """
        newline = False
        while pos < self.n and self.text[pos].isspace():
            newline = newline or self.text[pos] == "\n"
            pos += 1
        return pos >= self.n or newline or self.text[pos] in ",:}]"

    def _escape(self) -> str:
        text = self.text
        if self.pos + 1 >= self.n:
            self.pos += 1
            return ""
        c = text[self.pos + 1]
        if c in _ESCAPES:
            self.pos += 2
            return _ESCAPES[c]
        if c == "u":
            code = self._hex4(self.pos + 2)
            if code is None:
                self.pos += 2
                return "\\u"
            self.pos += 6
            if 0xD800 <= code < 0xDC00 and text.startswith("\\u", self.pos):
                low = self._hex4(self.pos + 2)
                if low is not None and 0xDC00 <= low < 0xE000:
                    self.pos += 6
                    return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
            # A lone surrogate cannot be encoded later; replace it.
            return "\ufffd" if 0xD800 <= code < 0xE000 else chr(code)
        # Unknown escape: keep the backslash so "C:\Users" stays a path.
        self.pos += 2
        return "\\" + c

    def _hex4(self, pos: int) -> int | None:
        digits = self.text[pos:pos + 4]
        if len(digits) == 4 and all(d in "0123456789abcdefABCDEF" for d in digits):
            return int(digits, 16)
        return None

    def _bare(self, context: str) -> Any:
        """An unquoted value: a number, a literal, or text up to the next member."""
        text, n = self.text, self.n
        start = self.pos
        while self.pos < n:
            c = text[self.pos]
            if c in "}]":
                break
            if c in ",\n" and (context != "object" or _NEXT_MEMBER.match(text, self.pos + 1)):
                break
            if c == "/" and text.startswith(("//", "/*"), self.pos) and (
                self.pos == start or text[self.pos - 1].isspace()
            ):
                break  # a comment after the value; "http://" is not one
            self.pos += 1
        raw = text[start:self.pos].strip()
        if not raw:
            return _MISSING
        return _bare_to_value(raw)


def _bare_to_value(raw: str) -> Any:
    if raw in _LITERALS:
        return _LITERALS[raw]
    if _NUMBER.fullmatch(raw):
        return int(raw) if _INTEGER.fullmatch(raw) else float(raw)
    return raw


def _strip_fences(text: str) -> str:
    # Fence markers become blanks so the object inside reads as plain JSON.
    return _FENCE.sub(" ", text) if "```" in text else text


def _scan(text: str) -> Iterator[tuple[Any, int, int]]:
    """Yield (value, start, end) for each plausible JSON start in the text."""
    parser = _TolerantParser(text)
    starts = [m.start() for m in _CANDIDATE.finditer(text)]
    head = len(text) - len(text.lstrip())
    if head < len(text) and text[head] in "{[" and head not in starts:
        starts.insert(0, head)  # a text that *is* JSON, e.g. "[1, 2,]"
    for start in starts[:MAX_CANDIDATES]:
        try:
            value, end = parser.parse_at(start)
        except (JSONRepairError, RecursionError):
            continue
        yield value, start, end


def _preview(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def repair_json(text: str) -> object:
    """Parse JSON leniently, as small models write it.

    Valid JSON is returned as `json.loads` would. Otherwise the first object
    or list found in the text is read with repairs. A string that itself holds
    JSON is returned as a string. Raises JSONRepairError when the text holds
    nothing object-like.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    first: list[Any] = []
    for value, _start, _end in _scan(_strip_fences(text)):
        if value:
            return value
        first = first or [value]
    if first:
        return first[0]  # only empty objects were found: "{}" still counts
    raise JSONRepairError(f"No JSON object or list found in: {_preview(text)!r}")


# --- tool calls ---------------------------------------------------------------

_ARG_KEYS = ("arguments", "args", "parameters", "input", "params")
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_META_KEYS = {"id", "type"}
_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
_ACTION = re.compile(r"^[ \t]*Action[ \t]*:[ \t]*(.*)$", re.M)
_ACTION_INPUT = re.compile(r"^[ \t]*Action[ \t]+Input[ \t]*:[ \t]*", re.M)
_REACT_STOP = re.compile(r"^[ \t]*(?:Observation|Thought|Final Answer)[ \t]*:", re.M)


def extract_tool_calls(text: str, tool_names: Collection[str]) -> list[ToolCall]:
    """Find tool calls a model wrote as text; [] when there are none.

    Reads `<tool_call>` tags, ReAct `Action:` / `Action Input:` lines, and
    call-shaped JSON (`name`+`arguments`, `tool`+`args`, OpenAI `function`,
    `tool_calls` lists). Unknown tool names are kept so the agent can tell the
    model. Unreadable arguments give a ToolCall with `error` set. Never raises.
    """
    try:
        names = frozenset(tool_names)
        return _from_tags(text, names) or _from_react(text, names) or _from_json(text, names)
    except Exception:  # a parser bug must not end the person's turn
        log.exception("Could not parse tool calls from model text")
        return []


def _from_tags(text: str, names: frozenset[str]) -> list[ToolCall]:
    if "<tool_call>" not in text:
        return []
    calls: list[ToolCall] = []
    for match in _TAG.finditer(text):
        calls.extend(_from_json(match.group(1), names))
    return calls


def _from_react(text: str, names: frozenset[str]) -> list[ToolCall]:
    matches = list(_ACTION.finditer(text))
    calls: list[ToolCall] = []
    for i, match in enumerate(matches):
        name = _clean_name(match.group(1), names)
        if not name:
            continue
        # The input runs until the next Action/Observation/Thought line.
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        segment = text[match.end():end]
        stop = _REACT_STOP.search(segment)
        if stop:
            segment = segment[:stop.start()]
        found = _ACTION_INPUT.search(segment)
        raw = segment[found.end():] if found else ""
        arguments, error = _react_input(raw.strip(), name)
        calls.append(ToolCall(name=name, arguments=arguments, error=error))
    return calls


def _react_input(raw: str, name: str) -> tuple[dict[str, Any], str | None]:
    raw = _strip_fences(raw).strip()
    if not raw:
        return {}, None
    if raw[0] in "{[" + _Q:
        try:
            value = repair_json(raw)
        except JSONRepairError:
            value = None  # e.g. 'tea' in single quotes: a bare string below
        if isinstance(value, dict):
            return value, None
        if isinstance(value, str):
            return {"input": value}, None
        if raw[0] in "{[":
            return {}, _arguments_error(name, "they are not a JSON object")
    return {"input": raw.strip(_Q)}, None


def _from_json(text: str, names: frozenset[str]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    consumed = 0
    for value, start, end in _scan(_strip_fences(text)):
        if start < consumed:
            continue  # inside a call already read
        found = _calls_from_value(value, names, 0)
        if found:
            calls.extend(found)
            consumed = end
    return calls


def _calls_from_value(value: Any, names: frozenset[str], depth: int) -> list[ToolCall]:
    if depth > 3:
        return []
    if isinstance(value, list):
        return [call for item in value for call in _calls_from_value(item, names, depth + 1)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return _calls_from_value(value["tool_calls"], names, depth + 1)
    call = _call_from_object(value, names)
    return [call] if call else []


def _call_from_object(obj: dict[str, Any], names: frozenset[str]) -> ToolCall | None:
    """Build a call from one call-shaped object, or None if it is not one."""
    function = obj.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        source, name_key = function, "name"  # OpenAI shape: always a call
    else:
        source = obj
        name_key = next((k for k in _NAME_KEYS if isinstance(obj.get(k), str)), "")
        if not name_key:
            return None
    name = _clean_name(source[name_key], names)
    if not name:
        return None
    args_key = next((k for k in _ARG_KEYS if k in source), None)
    if args_key is not None:
        arguments, error = _decode_arguments(source[args_key], name)
    elif source is obj and name_key == "name" and name not in names:
        # {"name": "Mimi", "age": 3} is data about a cat, not a call.
        return None
    else:
        # Flattened form: {"tool": "remember", "content": "tea"}.
        skip = _META_KEYS | {name_key}
        arguments, error = {k: v for k, v in source.items() if k not in skip}, None
    call_id = obj.get("id")
    if isinstance(call_id, str) and call_id.strip():
        return ToolCall(name=name, arguments=arguments, id=call_id.strip(), error=error)
    return ToolCall(name=name, arguments=arguments, error=error)


def _clean_name(raw: str, names: frozenset[str]) -> str:
    name = raw.strip().strip("`" + _Q).strip()
    if name not in names and "." in name:
        # "functions.remember" is how some models spell a tool name.
        suffix = name.rsplit(".", 1)[1]
        if suffix in names:
            return suffix
    return name


def _decode_arguments(raw: Any, name: str) -> tuple[dict[str, Any], str | None]:
    if raw is None:
        return {}, None
    # Arguments often arrive JSON-encoded as a string, sometimes twice.
    for _ in range(2):
        if not isinstance(raw, str):
            break
        if not raw.strip():
            return {}, None
        try:
            raw = repair_json(raw)
        except JSONRepairError:
            return {}, _arguments_error(name, "they are not JSON")
    if isinstance(raw, dict):
        return raw, None
    return {}, _arguments_error(name, f"they are {type(raw).__name__}, not a JSON object")


def _arguments_error(name: str, why: str) -> str:
    return (
        f"Could not read the arguments for {name}: {why}. "
        f'Send them as a JSON object, e.g. {{"name": "{name}", "arguments": {{"key": "value"}}}}.'
    )


# --- streaming ----------------------------------------------------------------

_MARKER = re.compile(r"\{|```|<tool_call>|^[ \t]*Action[ \t]*:|\[(?=\s*\{)", re.M)
_PARTIAL_TAG = "<tool_call>"
_PARTIAL_ACTION = "Action:"


def looks_like_tool_call_start(text: str) -> int | None:
    """Index where a possible tool-call marker begins in streamed text, or None.

    Markers: `{`, a code fence, `<tool_call>`, `Action:` at a line start, and
    `[` followed by `{`. A marker that may still be arriving at the very end
    ("<tool", "``", a trailing "[", "Act" on a new line) also counts, so
    callers should re-check as the text grows.
    """
    match = _MARKER.search(text)
    if match:
        return match.start()
    return _partial_marker(text)


def _partial_marker(text: str) -> int | None:
    stripped = text.rstrip()
    if stripped.endswith("["):
        return len(stripped) - 1
    for size in (2, 1):
        if text.endswith("`" * size):
            return len(text) - size
    lt = text.rfind("<")
    if lt >= 0 and _PARTIAL_TAG.startswith(text[lt:]):
        return lt
    line_start = text.rfind("\n") + 1
    last_line = text[line_start:]
    word = last_line.lstrip(" \t")
    if word and _PARTIAL_ACTION.startswith(word.rstrip(" \t")):
        return line_start
    return None
