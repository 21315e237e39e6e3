"""The page in a real browser: Debian's chromium driven by Selenium through chromedriver, against a
real service (`typhoon serve` on an embedded Redis).

The browser is installed by the set-up when it is missing (``apt-get install chromium
chromium-driver``; we run as root), so `make test` needs nothing by hand. Screenshots go to a
temporary directory, or to ``$TYPHOON_SCREENSHOTS`` when set (``docs/screenshots`` for the docs).

Accessibility is checked with axe-core (Deque's engine, the one browsers' own audits use), injected by
the tests and never served by the page: its npm package is fetched once with ``npm pack`` into
``~/.cache/typhoon`` (the tests that need it skip where there is no npm).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import pytest

from debian_packages import ensure_installed


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000", "--hide-scrollbars"]


def ensure_browser() -> None:
    """Install Debian's chromium and chromium-driver if they are not there."""
    ensure_installed(["chromium", "chromium-driver"], [CHROMIUM, CHROMEDRIVER])


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    ensure_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    wanted = os.environ.get("TYPHOON_SCREENSHOTS")
    path = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


AXE_VERSION = "4.10.3"
AXE_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "typhoon" / f"axe-core-{AXE_VERSION}.min.js"


def axe_source() -> str:
    """axe.min.js of the pinned axe-core, from the cache or fetched with npm into it."""
    if not AXE_CACHE.exists():
        if not shutil.which("npm"):
            pytest.skip("axe-core is fetched with npm, and there is no npm here")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp, "--silent"],
                           check=True, capture_output=True, timeout=300)
            with tarfile.open(Path(tmp) / f"axe-core-{AXE_VERSION}.tgz") as archive:
                script = archive.extractfile("package/axe.min.js").read()
        AXE_CACHE.parent.mkdir(parents=True, exist_ok=True)
        partial = AXE_CACHE.with_suffix(f".{os.getpid()}.part")  # test processes may fetch it at once
        partial.write_bytes(script)
        partial.replace(AXE_CACHE)
    return AXE_CACHE.read_text()


@pytest.fixture(scope="session")
def axe():
    """check(browser) -> the critical and serious violations axe-core finds on the page shown (WCAG 2.1 A
    and AA rules and best practices), each as "rule (impact): where"."""
    source = axe_source()

    def check(browser) -> list[str]:
        if not browser.execute_script("return !!window.axe"):
            browser.execute_script(source)
        result = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(JSON.stringify(r.violations)),"
            "  e => done(JSON.stringify([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}])));")
        return [f"{v['id']} ({v['impact']}): {v['help']}: " + "; ".join(n["target"][0] if isinstance(n["target"][0], str)
                                                                         else str(n["target"]) for n in v["nodes"][:4])
                for v in json.loads(result) if v["impact"] in ("critical", "serious")]
    return check
