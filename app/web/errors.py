"""One error body for the whole API: ``{"error": {"status": 404, "message": "..."}}``."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException


class ErrorDetail(BaseModel):
    status: int
    message: str


class ErrorBody(BaseModel):
    """What every failed API request returns."""

    error: ErrorDetail


class ApiError(Exception):
    """Raise to answer with ``status`` and a message meant for the person reading it."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


class RateLimited(Exception):
    """A request over one of its limits: answered 429 with ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(status=status, message=message))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting the error body for these statuses."""
    return {s: {"model": ErrorBody, "description": HTTPStatus(s).phrase} for s in statuses}


def install_error_handlers(app: FastAPI, templates: Jinja2Templates) -> None:
    """API paths answer with the JSON error body; pages answer with an HTML page."""

    def respond(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        if request.url.path.startswith("/api/"):
            return error_response(status, message, headers)
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message}, status_code=status, headers=headers
        )

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return respond(request, exc.status, exc.message, exc.headers)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        if exc.status_code == 404 and message == "Not Found":
            message = "There is nothing at this address."
        return respond(request, exc.status_code, message, getattr(exc, "headers", None))

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        parts = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
            parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
        return respond(request, 422, "; ".join(parts) or "The request is not valid.")

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        return respond(request, 500, "Something went wrong on the server. Try again in a moment.")

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(Exception, on_unexpected)
