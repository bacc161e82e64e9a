"""The roadmap's sections come in the order of ``sections.toml``, each with its description."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from api_support import REPO, SLUG, copy_exercise

WARM_UP = "Warm-up"
SECTIONS = f"""\
[[section]]
title = "{WARM_UP}"
summary = "Small steps before the real thing."

[[section]]
title = "Efficient Inference & Compression"
summary = "Making a trained model cheap to run."
"""


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    root = copy_exercise(tmp_path / "exercises")
    shutil.copytree(REPO / "exercises" / "rope", root / "rope")
    toml = root / "rope" / "exercise.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(
            'section = "Efficient Inference & Compression"', f'section = "{WARM_UP}"'
        )
    )
    (root / "sections.toml").write_text(SECTIONS)
    return root


def test_sections_come_in_the_order_of_the_roadmap_file_with_their_descriptions(client: httpx.Client) -> None:
    page = client.get("/").text
    # rope's order (30) is after the KV exercise's (10), but its section comes first.
    assert page.index(f">{WARM_UP}</h2>") < page.index('data-slug="rope"') < page.index(f'data-slug="{SLUG}"')
    assert page.index("Small steps before the real thing.") < page.index("Making a trained model cheap to run.")
    listed = [e["slug"] for e in client.get("/api/exercises").json()]
    assert listed == ["rope", SLUG]
