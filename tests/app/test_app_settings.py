"""Settings: every one documented, read from a settings file, and the defaults that depend on Redis."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_has_a_description_and_is_in_the_settings_docs(name: str) -> None:
    field = Settings.model_fields[name]
    assert field.description and len(field.description) > 10
    text = DOCS.read_text(encoding="utf-8")
    assert f"| `{name}` | `MLKATA_{name.upper()}` |" in text


def test_a_toml_settings_file_is_read_below_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "mlkata.toml"
    file.write_text('redis_prefix = "from-file"\nmax_queue = 7\nlease_seconds = 4.5\n', encoding="utf-8")
    monkeypatch.setenv("MLKATA_SETTINGS_FILE", str(file))
    monkeypatch.setenv("MLKATA_MAX_QUEUE", "9")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.redis_prefix, settings.max_queue, settings.lease_seconds) == ("from-file", 9, 4.5)


def test_a_dotenv_settings_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "mlkata.env"
    file.write_text("MLKATA_REDIS_URL=redis://example:6379/2\nMLKATA_LOG_FORMAT=text\n", encoding="utf-8")
    monkeypatch.setenv("MLKATA_SETTINGS_FILE", str(file))
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.redis_url == "redis://example:6379/2" and settings.log_format == "text"


def test_a_missing_settings_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLKATA_SETTINGS_FILE", str(tmp_path / "nowhere.toml"))
    with pytest.raises(FileNotFoundError, match=r"nowhere\.toml"):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_with_redis_the_web_process_grades_nothing_unless_told() -> None:
    assert Settings(_env_file=None, redis_url="redis://x").resolved_workers() == 0  # type: ignore[call-arg]
    assert Settings(_env_file=None, redis_url="redis://x", workers=2).resolved_workers() == 2  # type: ignore[call-arg]
    assert Settings(_env_file=None).resolved_workers() >= 1  # type: ignore[call-arg]


@pytest.mark.parametrize("value", ["10.0.0.300", "10.0.0.0/33", "10.0.0.1/8", "proxy.internal"])
def test_a_mistyped_trusted_proxy_is_refused_at_start_up_rather_than_silently_trusting_nothing(value: str) -> None:
    with pytest.raises(ValidationError, match="forwarded_allow_ips"):
        Settings(_env_file=None, forwarded_allow_ips=value)  # type: ignore[call-arg]


@pytest.mark.parametrize("value", ["127.0.0.1", "10.0.0.0/8, ::1", "*", ""])
def test_trusted_proxies_are_addresses_networks_or_everyone(value: str) -> None:
    assert Settings(_env_file=None, forwarded_allow_ips=value).forwarded_allow_ips == value  # type: ignore[call-arg]
