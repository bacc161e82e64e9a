"""The HTML pages and the headers every response carries."""

from __future__ import annotations

import json
import re

import httpx
from api_support import SLUG, read_events, reference_code, submit


def test_roadmap_lists_sections_and_exercises_and_marks_solved_ones(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "Efficient Inference &amp; Compression" in page.text
    assert "Decoding with a KV Cache" in page.text and "medium" in page.text and "attention" in page.text
    assert "data-solved" not in page.text and "0 of 1 solved" in page.text

    accepted = submit(client, reference_code()).json()
    assert read_events(client, accepted["events_url"])[-1]["data"]["status"] == "pass"
    page = client.get("/")
    assert "data-solved" in page.text and "✓" in page.text and "1 of 1 solved" in page.text


def test_exercise_page_has_statement_editor_and_data(client: httpx.Client) -> None:
    page = client.get(f"/exercises/{SLUG}")
    assert page.status_code == 200
    text = page.text
    assert '<a href="/">Roadmap</a>' in text and "Efficient Inference &amp; Compression" in text
    assert 'class="math-inline"' in text and 'class="math-display"' in text
    assert '<details class="hint">' in text
    assert "Time limit" in text and "2 s" in text and "512 MB" in text
    assert "solution.py" in text and "Reset to starter" in text
    assert "Press Run (⌘/Ctrl + Enter) to test your code." in text
    assert re.search(r'id="solved-mark"[^>]*hidden', text)
    data = json.loads(re.search(r'<script type="application/json" id="page-data">(.*?)</script>', text, re.S)[1])
    assert data["slug"] == SLUG and data["submissions_url"] == f"/api/exercises/{SLUG}/submissions"
    assert "NotImplementedError" in data["starter"]
    # No inline scripts: every executable script comes from a file.
    for tag in re.findall(r"<script\b[^>]*>", text):
        assert 'src="/static/' in tag or 'type="application/json"' in tag


def test_security_headers(client: httpx.Client) -> None:
    for path in ("/", f"/exercises/{SLUG}", "/api/exercises", "/docs", "/api/submissions/missing"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self';" in csp and "style-src 'self' 'nonce-" in csp and "default-src 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
    first, second = (client.get(f"/exercises/{SLUG}") for _ in range(2))
    nonce = re.search(r"'nonce-([^']+)'", first.headers["content-security-policy"])[1]
    assert nonce not in second.headers["content-security-policy"]  # a new nonce for every response
    assert f'"style_nonce": "{nonce}"' in first.text


def test_openapi_documents_the_api(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    assert {"/api/exercises", "/api/exercises/{slug}", "/api/exercises/{slug}/submissions"} <= set(paths)
    assert {"/api/submissions/{submission_id}", "/api/submissions/{submission_id}/events"} <= set(paths)
    post = paths["/api/exercises/{slug}/submissions"]["post"]
    assert "code" in post["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert {"202", "413", "422", "429", "503"} <= set(post["responses"])
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/static/swagger-ui/swagger-ui-bundle.js" in docs.text
