"""read_file / write_file / list_dir, confined to the workspace folder.

A path from the model is checked twice. First as text: it must be relative,
plain and portable (no "..", no leading / or ~, no backslash, NUL or other
control character, no URL-encoding, no look-alike dots or slashes, no
Windows device name, not overlong). Then as a place: it is resolved with
every symbolic link followed, and refused unless it lands inside the
workspace. Then it is opened one name at a time from a descriptor on the
workspace folder, never through a symbolic link (O_NOFOLLOW): the links the
check resolved are not on the way any more, and a folder swapped for a link
after the check makes the open fail instead of leading outside.
"""

from __future__ import annotations

import contextlib
import errno
import mimetypes
import os
import re
import secrets
import stat
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pet.errors import ToolArgumentError, ToolError
from pet.tools.registry import Label, Tool, ToolContext

#: the largest file read_file opens, and the largest a write may leave behind,
#: so the pet can always read back what it wrote
MAX_FILE_BYTES = 256 * 1024
#: the most one write_file call may add
MAX_WRITE_BYTES = 64 * 1024
#: characters of a file shown per read_file call; below the registry's result
#: cap so the note on how to read on is never cut off
SHOWN_CHARS = 3500
MAX_PATH_CHARS = 400
#: the usual file-system limit on one name is 255 bytes (a Chinese character is 3)
MAX_NAME_BYTES = 255
MAX_LISTED = 200

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # so a named pipe cannot hang a read
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW
_ENCODED = re.compile(r"%[0-9a-fA-F]{2}")
# Names Windows keeps for devices, with or without an extension.
_DEVICE = re.compile(r"(?:con|prn|aux|nul|clock\$|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?", re.IGNORECASE)
_RESERVED = set('<>:"|?*')
# Dots and slashes in disguise that Unicode normalization (NFKC) leaves alone.
_LOOKALIKES = set("\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\u3002\uff61\u2024\u2025\u2026")
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_EXAMPLE = 'a path inside the workspace folder, like "notes.md" or "trips/japan.md"'


class PathRefused(ToolArgumentError):
    """A path that is not a plain place inside the workspace."""


def _refuse(raw: str, why: str) -> PathRefused:
    shown = raw if len(raw) <= 80 else raw[:77] + "…"
    return PathRefused(f"{shown!r} {why}; give {_EXAMPLE}")


def path_parts(raw: str) -> list[str]:
    """The names of a relative path, checked as text. Raises PathRefused."""
    if len(raw) > MAX_PATH_CHARS:
        raise _refuse(raw, f"is {len(raw)} characters long (the limit is {MAX_PATH_CHARS})")
    for ch in raw:
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            raise _refuse(raw, f"contains the invisible or control character U+{ord(ch):04X}")
        if ch == "\\":
            raise _refuse(raw, "contains a backslash; separate folders with /")
        if ch in _RESERVED:
            raise _refuse(raw, f"contains {ch!r}, which file names cannot hold everywhere")
        if ch in _LOOKALIKES:
            raise _refuse(raw, f"contains U+{ord(ch):04X}, which looks like a dot or a slash; use plain characters")
    if unicodedata.normalize("NFKC", raw) != unicodedata.normalize("NFC", raw):
        raise _refuse(raw, "contains look-alike characters (full-width letters, dots or slashes); "
                           "use plain characters")
    if _ENCODED.search(raw):
        raise _refuse(raw, "looks URL-encoded (%xx); write the name itself")
    if raw.startswith(("/", "~")):
        raise _refuse(raw, "is an absolute path; the file tools only reach the workspace folder")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    for part in parts:
        if part == "..":
            raise _refuse(raw, "goes up out of its folder with ..")
        if part.endswith((".", " ")):
            raise _refuse(raw, f"has a name ending in a dot or space ({part!r})")
        if _DEVICE.fullmatch(part):
            raise _refuse(raw, f"uses {part!r}, a device name on Windows")
        if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
            raise _refuse(raw, f"has a name longer than {MAX_NAME_BYTES} bytes")
    return parts


def confine(workspace: Path, raw: str) -> Path:
    """The real place `raw` names inside `workspace`, symbolic links
    followed. Raises PathRefused when the text is not a plain relative path
    or when the place lies outside the workspace."""
    parts = path_parts(raw.strip())
    root = Path(os.path.realpath(workspace))
    try:
        place = Path(os.path.realpath(root.joinpath(*parts)))
    except OSError:  # a folder or link on the way was replaced while realpath walked it
        raise PathRefused(f"{raw[:80]!r} changed while it was being checked; call the tool again") from None
    if place != root and not place.is_relative_to(root):
        raise _refuse(raw, "leads outside the workspace folder through a symbolic link")
    return place


def _shown_name(workspace: Path, place: Path) -> str:
    root = Path(os.path.realpath(workspace))
    return place.relative_to(root).as_posix() if place != root else "."


def _open_folder(root: Path, parts: Sequence[str], *, make: bool = False) -> int:
    """A descriptor on the folder root/parts, each name opened from the one
    before without following a symbolic link. confine() resolved the links
    that were there when it looked, so a link met here was swapped in since:
    the open fails (ELOOP) instead of following it. With make, missing
    folders are created on the way."""
    fd = os.open(root, _FOLDER)
    try:
        for part in parts:
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, _FOLDER, dir_fd=fd)
            except NotADirectoryError:
                # Linux answers a link met with O_DIRECTORY | O_NOFOLLOW with ENOTDIR; say ELOOP
                if stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode):
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), part) from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_failed(name: str, exc: OSError, doing: str) -> ToolError:
    if exc.errno == errno.ELOOP:
        return ToolError(f"{name} is, or goes through, a symbolic link that does not stay inside the workspace "
                         f"(it may have changed just now); the file tools do not follow it. "
                         f"Use list_dir to see what is there")
    if exc.errno == errno.ENOTDIR:
        return ToolError(f"a part of {name} is a file, not a folder; pick another path")
    return ToolError(f"could not {doing} {name}: {exc.strerror or exc}")


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _check_regular(name: str, info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise ToolError(f"{name} turned into a symbolic link just now; the file tools do not follow it")
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{name} is a folder; use list_dir to see what is in it")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{name} is not an ordinary file (a device, pipe or socket); the file tools leave it alone")
    if info.st_nlink > 1:
        # A hard link may share its content with a file outside the workspace.
        raise ToolError(f"{name} is a hard link to another file; the file tools leave it alone")


def _describe_binary(name: str, size: int) -> str:
    kind, _ = mimetypes.guess_type(name)
    what = f"a {kind} file" if kind else "a binary file"
    return f"{name} is {what} ({_size(size)}), not text; read_file only shows text files."


def _page(name: str, text: str, start_line: int) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return f"({name} is empty.)"
    if start_line > len(lines):
        raise ToolArgumentError(f"{name} has {len(lines)} lines; start_line must be between 1 and {len(lines)}")
    shown: list[str] = []
    used = 0
    last = start_line - 1
    for line in lines[start_line - 1:]:
        if used + len(line) > SHOWN_CHARS:
            if not shown:  # one very long line: show its beginning
                shown.append(line[:SHOWN_CHARS] + "…\n")
                last += 1
            break
        shown.append(line)
        used += len(line)
        last += 1
    body = "".join(shown)
    if start_line == 1 and last == len(lines):
        return body
    if last < len(lines):
        return (f"{body.rstrip(chr(10))}\n[{name}: lines {start_line}-{last} of {len(lines)}; "
                f"call read_file with start_line={last + 1} to read on]")
    return f"{body.rstrip(chr(10))}\n[{name}: lines {start_line}-{last} of {len(lines)}, the end]"


def _read(root: Path, parts: Sequence[str], name: str) -> str:
    try:
        folder = _open_folder(root, parts[:-1])
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=folder)
        finally:
            os.close(folder)
    except FileNotFoundError:
        raise ToolError(f"there is no file {name} in the workspace; use list_dir to see what is there") from None
    except OSError as exc:
        raise _open_failed(name, exc, "open") from None
    try:
        info = os.fstat(fd)
        _check_regular(name, info)
        if info.st_size > MAX_FILE_BYTES:
            raise ToolError(f"{name} is {_size(info.st_size)}; read_file opens files up to {_size(MAX_FILE_BYTES)}")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:  # it grew since fstat
        raise ToolError(f"{name} is over {_size(MAX_FILE_BYTES)}; read_file opens files up to that size")
    if b"\x00" in data:
        raise ToolError(_describe_binary(name, len(data)))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ToolError(_describe_binary(name, len(data)) + " (It is not UTF-8.)") from None


def _write(root: Path, parts: Sequence[str], name: str, data: bytes, mode: str) -> int:
    """Write and return the file's new size, creating the folders on the way."""
    try:
        os.makedirs(root, exist_ok=True)
        folder = _open_folder(root, parts[:-1], make=True)
    except OSError as exc:
        raise _open_failed(name, exc, "write") from None
    try:
        return _write_in(folder, parts[-1], name, data, mode)
    except FileExistsError:
        raise ToolError(f"{name} was created by something else just now; call write_file again") from None
    except OSError as exc:
        raise _open_failed(name, exc, "write") from None
    finally:
        os.close(folder)


def _write_in(folder: int, leaf: str, name: str, data: bytes, mode: str) -> int:
    """_write's work on the file `leaf` in the open `folder`."""
    try:
        info = os.stat(leaf, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is None:
        fd = os.open(leaf, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return len(data)
    if mode == "create":
        raise ToolError(f'{name} already exists; call write_file with mode "append" to add to its end '
                        f'or mode "overwrite" to replace it')
    _check_regular(name, info)
    grown = len(data) + (info.st_size if mode == "append" else 0)
    if grown > MAX_FILE_BYTES:
        raise ToolError(f"{name} would grow to {_size(grown)}; files the pet writes stay under "
                        f"{_size(MAX_FILE_BYTES)}. Write a new file instead")
    if mode == "append":
        fd = os.open(leaf, os.O_WRONLY | os.O_APPEND | _NOFOLLOW, dir_fd=folder)
        with os.fdopen(fd, "ab") as handle:
            _check_regular(name, os.fstat(handle.fileno()))
            handle.write(data)
        return len(data) + info.st_size
    # Overwrite through a new file renamed into place: a crash never leaves half a file.
    temporary = f".pet-write-{secrets.token_hex(6)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
        os.replace(temporary, leaf, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    return len(data)


def _entry(root: Path, place: Path, entry: os.DirEntry[str]) -> tuple[int, str]:
    """(sort group, line) for one name listed in the folder `place`."""
    name = entry.name if entry.name.isprintable() else ascii(entry.name)[1:-1]
    if entry.is_symlink():
        target = Path(os.path.realpath(place / entry.name))
        if target != root and not target.is_relative_to(root):
            return 2, f"{name} (a link leading outside the workspace; the file tools do not follow it)"
        return 2, f"{name} (a link to {target.relative_to(root).as_posix() if target != root else '.'})"
    if entry.is_dir(follow_symlinks=False):
        return 0, f"{name}/"
    try:
        size = entry.stat(follow_symlinks=False).st_size
    except OSError:
        return 1, name
    return 1, f"{name} ({_size(size)})"


def file_tools(workspace: Path) -> list[Tool]:
    """The three file tools on `workspace` (created on the first write)."""

    def read_file(path: str, start_line: int = 1) -> str:
        """Read a text file from the person's workspace folder.

        Args:
            path: the file's path inside the workspace folder, like "notes.md" or "trips/japan.md"
            start_line: the line to start at (1 is the top); long files are shown a part at a time
        """
        if start_line < 1:
            raise ToolArgumentError("start_line counts from 1 (the first line)")
        place = confine(workspace, path)
        name = _shown_name(workspace, place)
        if name == ".":
            raise ToolArgumentError("path names the workspace folder itself; use list_dir to see its files")
        root = Path(os.path.realpath(workspace))
        return _page(name, _read(root, place.relative_to(root).parts, name), start_line)

    def write_file(path: str, content: str, ctx: ToolContext,
                   mode: Literal["create", "append", "overwrite"] = "create") -> str:
        """Save text in a file in the person's workspace folder. Only when the person asks for it.

        Args:
            path: the file's path inside the workspace folder, like "notes.md" or "trips/japan.md"
            content: the text to write
            mode: "create" makes a new file (fails if it exists), "append" adds to the end, "overwrite" replaces it
        """
        data = content.encode("utf-8", "surrogatepass")
        if "\x00" in content:
            raise ToolArgumentError("content holds NUL characters; write_file writes text only")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolArgumentError(f"content is {_size(len(data))}; one write_file call takes up to "
                                    f"{_size(MAX_WRITE_BYTES)}. Split it and append the rest")
        place = confine(workspace, path)
        name = _shown_name(workspace, place)
        if name == ".":
            raise ToolArgumentError("path names the workspace folder itself; give a file name")
        root = Path(os.path.realpath(workspace))
        size = _write(root, place.relative_to(root).parts, name, data, mode)
        verb = {"create": "Created", "append": "Appended to", "overwrite": "Replaced"}[mode]
        if ctx.language == "zh":
            zh_verb = {"create": "已新建", "append": "已追加到", "overwrite": "已覆盖"}[mode]
            return f"{zh_verb} {name}（写入 {_size(len(data))}，文件现在 {_size(size)}）"
        return f"{verb} {name} (wrote {_size(len(data))}; the file is now {_size(size)})"

    def list_dir(ctx: ToolContext, path: str = ".") -> str:
        """List the files and folders in the person's workspace folder, or in a folder inside it.

        Args:
            path: a folder inside the workspace folder; "." (the default) is the workspace itself
        """
        place = confine(workspace, path)
        name = _shown_name(workspace, place)
        root = Path(os.path.realpath(workspace))
        if not root.exists():
            return "The workspace folder is empty." if ctx.language != "zh" else "工作文件夹是空的。"
        try:
            fd = _open_folder(root, place.relative_to(root).parts)
        except FileNotFoundError:
            raise ToolError(f"there is no folder {name} in the workspace; use list_dir with no path to see the top") from None
        except NotADirectoryError:
            raise ToolError(f"{name} is a file; use read_file to read it") from None
        except OSError as exc:
            raise _open_failed(name, exc, "list") from None
        try:
            with os.scandir(fd) as found:
                entries = sorted((_entry(root, place, entry) for entry in found),
                                 key=lambda item: (item[0], item[1]))
        except OSError as exc:
            raise ToolError(f"could not list {name}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
        if not entries:
            return f"{name} is empty." if name != "." else "The workspace folder is empty."
        lines = [line for _, line in entries[:MAX_LISTED]]
        if len(entries) > MAX_LISTED:
            lines.append(f"… and {len(entries) - MAX_LISTED} more")
        heading = "The workspace folder holds:" if name == "." else f"{name}/ holds:"
        return heading + "\n" + "\n".join(lines)

    return [
        Tool.from_function(read_file, label=Label(en=("reading a file", "read a file"), zh=("正在读文件", "读过了文件"))),
        Tool.from_function(write_file, side_effect=True, reads_outside=False,
                           label=Label(en=("writing a file", "wrote a file"), zh=("正在写文件", "写好了文件"))),
        Tool.from_function(list_dir, label=Label(en=("looking in a folder", "looked in a folder"),
                                                 zh=("正在查看文件夹", "看过了文件夹"))),
    ]
