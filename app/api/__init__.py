"""The JSON API under ``/api``."""

from __future__ import annotations

from fastapi import APIRouter

from app.api import drafts, exercises, history, submissions


def router() -> APIRouter:
    api = APIRouter(prefix="/api")
    api.include_router(exercises.router)
    api.include_router(submissions.router)
    api.include_router(history.router)
    api.include_router(drafts.router)
    return api
