"""The roadmap's sections come in the order of ``sections.toml``, each with its description."""

from __future__ import annotations

import re
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
    assert page.index(f">{WARM_UP}</a></h3>") < page.index(">Efficient Inference &amp; Compression</a></h3>")
    assert page.index('data-finder-item data-slug="rope"') < page.index(f'data-finder-item data-slug="{SLUG}"')
    assert page.index("Small steps before the real thing.") < page.index("Making a trained model cheap to run.")
    listed = [e["slug"] for e in client.get("/api/exercises").json()]
    assert listed == ["rope", SLUG]


def test_a_section_has_a_page_with_its_description_its_exercises_and_the_sections_around_it(
    client: httpx.Client,
) -> None:
    page = client.get("/").text
    assert '<a href="/sections/warm-up">Warm-up</a>' in page
    assert '<a href="/sections/efficient-inference-compression">Efficient Inference &amp; Compression</a>' in page

    section = client.get("/sections/efficient-inference-compression")
    assert section.status_code == 200
    text = section.text
    assert '<h1 id="section-title">Efficient Inference &amp; Compression</h1>' in text
    assert "Making a trained model cheap to run." in text and "Small steps" not in text
    assert '<li aria-current="page">Section 2 of 2</li>' in text
    assert re.findall(r'<a class="card exercise-card" href="/exercises/([\w-]+)"', text) == [SLUG]
    assert "0 of 1 solved" in text
    assert re.search(r'<a class="button" href="/sections/warm-up" rel="prev">', text)
    assert 'rel="next"' not in text
    # What to open next within the section: its first exercise, for a learner who has run nothing.
    assert re.search(rf'<section class="card next-up"[^>]*data-slug="{SLUG}" data-why="start">', text)

    missing = client.get("/sections/nowhere")
    assert missing.status_code == 404 and "There is no section “nowhere”." in missing.text
