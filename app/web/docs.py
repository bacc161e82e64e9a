"""``/docs``: Swagger UI served from local files, started by a script file (the CSP allows no inline code)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mlkata API</title>
<link rel="stylesheet" href="/static/swagger-ui/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/static/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/static/docs.js"></script>
</body>
</html>
"""


def docs_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/docs", response_class=HTMLResponse)
    def docs() -> HTMLResponse:
        return HTMLResponse(DOCS_PAGE)

    return router
