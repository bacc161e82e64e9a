// Starts Swagger UI on /docs (a file, because the Content-Security-Policy allows no inline script).
window.addEventListener("DOMContentLoaded", () => {
  /** @type {any} */ (window).SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
