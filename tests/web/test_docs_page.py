"""/docs (Swagger UI) in a real browser: it renders the API from this server's files alone."""

from __future__ import annotations

import time

import httpx


def _rendered(browser, css: str, timeout: float = 30.0) -> int:
    """How many elements match ``css`` once some do (0 after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = browser.execute_script(f"return document.querySelectorAll({css!r}).length")
        if found:
            return found
        time.sleep(0.2)
    return 0


def test_swagger_ui_loads_nothing_from_another_host(browser, service, screenshots):
    with httpx.Client(base_url=service.base_url) as http:
        page = http.get("/docs")
        assert page.status_code == 200 and "swagger-ui" in page.text
        assert "cdn." not in page.text and "//unpkg" not in page.text
        assert http.get("/redoc").status_code == 404  # ReDoc's bundle would fetch its makers' logo
    browser.get(f"{service.base_url}/docs")
    assert _rendered(browser, ".opblock") > 10, "Swagger UI rendered no operation"
    assert "/v1/matches/{match_id}/watch" in browser.page_source
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert loaded and all(url.startswith(service.base_url) for url in loaded), loaded
    browser.save_screenshot(str(screenshots / "swagger-ui.png"))
