"""The page in a real browser: Debian's chromium driven by Selenium through chromedriver, against a
real service (`typhoon serve` on an embedded Redis).

The browser is installed by the set-up when it is missing (``apt-get install chromium
chromium-driver``; we run as root), so `make test` needs nothing by hand. Screenshots go to a
temporary directory, or to ``$TYPHOON_SCREENSHOTS`` when set (``docs/screenshots`` for the docs).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000", "--hide-scrollbars"]


def ensure_browser() -> None:
    """Install Debian's chromium and chromium-driver if they are not there (one install at a time: the test
    processes of ``pytest -n`` may all get here at once, and apt allows one dpkg at a time)."""
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    with open(Path(tempfile.gettempdir()) / "typhoon-tests-browser-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
            _install_browser()


def _install_browser() -> None:
    if not shutil.which("apt-get"):
        pytest.fail("the browser tests need chromium and chromium-driver, and there is no apt-get to install them")
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "chromium", "chromium-driver"]
    if subprocess.run(install, env=environment, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=environment, capture_output=True, check=True)
        subprocess.run(install, env=environment, capture_output=True, check=True)


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
