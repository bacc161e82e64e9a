"""The web around the API: pages, the built front end, the API's docs, errors and security headers."""

from app.web.assets import Manifest, StaticAssets
from app.web.docs import docs_router
from app.web.errors import ApiError, RateLimited, error_responses, install_error_handlers
from app.web.security import SecurityHeadersMiddleware

__all__ = [
    "ApiError", "Manifest", "RateLimited", "SecurityHeadersMiddleware", "StaticAssets", "docs_router",
    "error_responses", "install_error_handlers",
]  # fmt: skip
