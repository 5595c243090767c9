"""Settings: defaults < $PET_HOME/config.toml < PET_* environment < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from pet.config import BRAINS, Settings, load_settings
from pet.errors import ConfigError


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- defaults ----------------------------------------------------------------


def test_defaults_without_file_env_or_flags(tmp_path):
    home = tmp_path / "home"
    settings = load_settings({}, {"PET_HOME": str(home)})

    assert settings.home == home.resolve()
    assert settings.brain == "auto"
    assert settings.base_url == "http://127.0.0.1:11434/v1"
    assert settings.model == "qwen2.5:3b"
    assert settings.host == "127.0.0.1"  # loopback only unless asked otherwise
    assert settings.port == 7860
    assert settings.persona == "xiaoqian"
    assert settings.retries == 2
    assert settings.connect_timeout == 5.0
    assert settings.database_url == ""
    assert settings.database == f"sqlite:///{home.resolve() / 'pet.db'}"
    assert settings.database_path == home.resolve() / "pet.db"


def test_default_home_is_dot_pet_in_the_user_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    settings = load_settings({}, {})
    assert settings.home == (tmp_path / ".pet").resolve()


def test_none_flags_mean_unset():
    settings = load_settings({"port": None, "model": None, "brain": None}, {})
    assert settings.port == Settings.port
    assert settings.model == Settings.model
    assert settings.brain == Settings.brain


def test_environ_defaults_to_the_process_environment(pet_home, monkeypatch):
    monkeypatch.setenv("PET_MODEL", "from-os-environ")
    settings = load_settings()
    assert settings.model == "from-os-environ"
    assert settings.home == pet_home.resolve()


# --- precedence --------------------------------------------------------------


def test_each_layer_overrides_the_one_below(tmp_path):
    home = tmp_path / "home"
    write_config(home, "port = 7001\n")
    env = {"PET_HOME": str(home)}

    assert load_settings({}, {"PET_HOME": str(tmp_path / "empty")}).port == 7860  # default
    assert load_settings({}, env).port == 7001  # file beats default
    assert load_settings({}, {**env, "PET_PORT": "7002"}).port == 7002  # env beats file
    assert load_settings({"port": 7003}, {**env, "PET_PORT": "7002"}).port == 7003  # flag beats env


def test_layers_merge_key_by_key(tmp_path):
    home = tmp_path / "home"
    write_config(home, 'model = "file-model"\nbrain = "server"\nread_timeout = 30\n')
    settings = load_settings({"brain": "embedded"}, {"PET_HOME": str(home), "PET_MODEL": "env-model"})

    assert settings.brain == "embedded"  # flag
    assert settings.model == "env-model"  # environment
    assert settings.read_timeout == 30.0  # file, coerced to float
    assert settings.port == 7860  # default


def test_home_flag_beats_pet_home_and_picks_the_config_file(tmp_path):
    env_home, flag_home = tmp_path / "env-home", tmp_path / "flag-home"
    write_config(env_home, "port = 7001\n")
    write_config(flag_home, "port = 7002\n")

    settings = load_settings({"home": str(flag_home)}, {"PET_HOME": str(env_home)})

    assert settings.home == flag_home.resolve()
    assert settings.port == 7002


def test_environment_strings_are_coerced_to_the_setting_type(tmp_path):
    settings = load_settings(
        {}, {"PET_HOME": str(tmp_path), "PET_RETRIES": "5", "PET_PROBE_TIMEOUT": "0.5", "PET_HOST": "::1"}
    )
    assert settings.retries == 5
    assert settings.probe_timeout == 0.5
    assert settings.host == "::1"


# --- absolute paths ----------------------------------------------------------


@pytest.mark.parametrize("layer", ["flag", "env"])
def test_relative_home_becomes_absolute(tmp_path, monkeypatch, layer):
    monkeypatch.chdir(tmp_path)
    flags, env = ({"home": "rel-home"}, {}) if layer == "flag" else ({}, {"PET_HOME": "rel-home"})

    settings = load_settings(flags, env)

    expected = (tmp_path / "rel-home").resolve()
    assert settings.home.is_absolute()
    assert settings.home == expected
    assert settings.database_path == expected / "pet.db"
    assert settings.database_path.is_absolute()
    assert settings.database == f"sqlite:///{expected / 'pet.db'}"


def test_settings_do_not_change_when_the_working_directory_does(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    settings = load_settings({"home": "../pet-home"}, {})
    monkeypatch.chdir(tmp_path / "b")
    assert settings.database_path == (tmp_path / "pet-home" / "pet.db").resolve()


@pytest.mark.parametrize("layer", ["file", "env", "flag"])
def test_relative_sqlite_url_is_made_absolute_under_home(tmp_path, monkeypatch, layer):
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    url = "sqlite:///data/my.db"
    flags: dict = {}
    env = {"PET_HOME": str(home)}
    if layer == "file":
        write_config(home, f'database_url = "{url}"\n')
    elif layer == "env":
        env["PET_DATABASE_URL"] = url
    else:
        flags["database_url"] = url

    settings = load_settings(flags, env)

    expected = home.resolve() / "data" / "my.db"
    assert settings.database_path == expected
    assert settings.database == f"sqlite:///{expected}"


def test_absolute_sqlite_url_and_other_urls_are_kept(tmp_path):
    absolute = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert load_settings({"database_url": absolute}, {}).database == absolute
    memory = load_settings({"database_url": "sqlite:///:memory:"}, {})
    assert memory.database == "sqlite:///:memory:"
    assert memory.database_path is None
    postgres = "postgresql://pet@127.0.0.1/pet"
    assert load_settings({"database_url": postgres}, {}).database_path is None


def test_bad_toml_names_the_file(tmp_path):
    path = write_config(tmp_path, "port = = 3\n")
    with pytest.raises(ConfigError) as info:
        load_settings({}, {"PET_HOME": str(tmp_path)})
    assert str(path) in str(info.value)
    assert "TOML" in str(info.value)


def test_config_file_that_is_not_utf8_is_a_config_error(tmp_path):
    tmp_path.joinpath("config.toml").write_bytes(b'model = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match="config.toml"):
        load_settings({}, {"PET_HOME": str(tmp_path)})


def test_unknown_key_in_file_names_file_and_key(tmp_path):
    path = write_config(tmp_path, 'colour = "red"\n')
    with pytest.raises(ConfigError) as info:
        load_settings({}, {"PET_HOME": str(tmp_path)})
    message = str(info.value)
    assert str(path) in message
    assert "'colour'" in message
    assert "port" in message  # lists the known keys


def test_home_cannot_be_set_in_the_file_it_lives_in(tmp_path):
    write_config(tmp_path, 'home = "/elsewhere"\n')
    with pytest.raises(ConfigError, match="'home'"):
        load_settings({}, {"PET_HOME": str(tmp_path)})


def test_bad_type_in_file_names_file_and_key(tmp_path):
    path = write_config(tmp_path, 'port = "abc"\n')
    with pytest.raises(ConfigError) as info:
        load_settings({}, {"PET_HOME": str(tmp_path)})
    message = str(info.value)
    assert str(path) in message
    assert "'port'" in message
    assert "'abc'" in message


def test_boolean_is_not_a_number(tmp_path):
    write_config(tmp_path, "retries = true\n")
    with pytest.raises(ConfigError, match="'retries'"):
        load_settings({}, {"PET_HOME": str(tmp_path)})


def test_bad_type_in_environment_names_the_variable(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_settings({}, {"PET_HOME": str(tmp_path), "PET_PORT": "abc"})
    assert "PET_PORT" in str(info.value)
    assert "'port'" in str(info.value)


def test_bad_type_in_flag_names_the_flag(tmp_path):
    with pytest.raises(ConfigError, match="--read-timeout"):
        load_settings({"read_timeout": "soon"}, {"PET_HOME": str(tmp_path)})


def test_unknown_flag_is_refused():
    with pytest.raises(ConfigError, match="'colour'"):
        load_settings({"colour": "red"}, {})


@pytest.mark.parametrize("layer", ["file", "env", "flag"])
def test_bad_brain_is_refused_and_lists_the_choices(tmp_path, layer):
    env = {"PET_HOME": str(tmp_path)}
    flags: dict = {}
    if layer == "file":
        write_config(tmp_path, 'brain = "cloud"\n')
    elif layer == "env":
        env["PET_BRAIN"] = "cloud"
    else:
        flags["brain"] = "cloud"
    with pytest.raises(ConfigError) as info:
        load_settings(flags, env)
    message = str(info.value)
    assert "brain" in message
    assert "'cloud'" in message
    assert all(choice in message for choice in BRAINS)


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_port_out_of_range_is_refused(tmp_path, port):
    with pytest.raises(ConfigError, match="port"):
        load_settings({}, {"PET_HOME": str(tmp_path), "PET_PORT": port})


@pytest.mark.parametrize("line", ["port = 7001.9", "retries = 2.5", "connect_timeout = true"])
def test_numbers_of_the_wrong_kind_in_file_are_refused(tmp_path, line):
    write_config(tmp_path, line + "\n")
    with pytest.raises(ConfigError, match=line.split()[0]):
        load_settings({}, {"PET_HOME": str(tmp_path)})
