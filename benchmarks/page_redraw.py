"""How long the page takes to redraw the map, per event, in a real browser (headless Chromium).

    python benchmarks/page_redraw.py [--steps 200]

Starts `typhoon serve` (embedded Redis), plays a random match to its end over gRPC, then:

- live: opens the match page on a second match and plays actions while it watches; every version the
  stream brings redraws the map (board.js changes only what changed: counters that moved, turned or
  went, city owners, the marks; the terrain is one image drawn once);
- replay: steps through the finished match action by action.

The page records each redraw's time (``performance.now()`` around building and changing the SVG's
elements, ``window.typhoon.redraws``; the browser's layout of them follows in the frame). The floor,
measured in the same page in the same run, is the least a hex map needs: the same SVG element redrawn
with the map's 140 bare hexagons (no terrain, rivers, rail, cities, labels or counters), laid out.
Prints median, 95th percentile and maximum,
and the median's ratio to the floor's. Needs /usr/bin/chromium and chromedriver
(`apt-get install chromium chromium-driver`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clients.client import TyphoonClient  # noqa: E402
from clients.random_play import play_out  # noqa: E402
from service.processes import ServeProcess  # noqa: E402

FLOOR_JS = """
const svg = document.querySelector('svg.board');
const polygons = [];
for (let c = 0; c < 14; c++) for (let r = 0; r < 10; r++) {
  const x = 50 + c * 54, y = 50 + r * 62 + (c % 2 ? 0 : 31), p = [];
  for (let k = 0; k < 6; k++) p.push(`${(x + 36 * Math.cos(k * Math.PI / 3)).toFixed(1)},${(y + 36 * Math.sin(k * Math.PI / 3)).toFixed(1)}`);
  polygons.push(`<polygon points="${p.join(' ')}" fill="#f4eed7" stroke="#8c8577"/>`);
}
const times = [];
for (let i = 0; i < 50; i++) {
  const started = performance.now();
  svg.innerHTML = polygons.join('');
  svg.getBBox();
  times.push(performance.now() - started);
}
return times;"""


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def play(client: TyphoonClient, match_id: str, tokens: dict[str, str], chooser: random.Random, count: int | None) -> int:
    return play_out(client, match_id, tokens, chooser, count)


def summary(name: str, times: list[float], floor: float) -> str:
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    median = statistics.median(ordered)
    return (f"{name:8} {len(times):5} redraws  median {median:6.1f} ms  p95 {p95:6.1f} ms  max {ordered[-1]:6.1f} ms"
            f"  (median {median / floor:4.1f}× the floor)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="replay steps to walk through (default 200)")
    parser.add_argument("--live-actions", type=int, default=60, help="actions played while the live page watches")
    args = parser.parse_args()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    service = ServeProcess("--data-dir", tempfile.mkdtemp()).start()
    driver = browser()
    try:
        chooser = random.Random("redraw")
        with TyphoonClient(service.target) as client:
            finished, tokens = client.create_match("standard", seats=[("german", ""), ("soviet", "")])
            play(client, finished.match_id, tokens, chooser, None)
            live, live_tokens = client.create_match("standard", seats=[("german", ""), ("soviet", "")])

            driver.get(f"{service.base_url}/#/match/{live.match_id}")
            WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.typhoon.redraws.length") > 0)
            driver.execute_script("window.typhoon.redraws.length = 0")
            for _ in range(args.live_actions):
                play(client, live.match_id, live_tokens, chooser, 1)
                time.sleep(0.05)
            version = client.get_match(live.match_id).match.version
            WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.typhoon.match.version") == version)
            live_times = driver.execute_script("return window.typhoon.redraws.slice()")

            last = client.get_match(finished.match_id).match.version
            driver.get(f"{service.base_url}/#/replay/{finished.match_id}?step=0")
            WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "where").text.startswith("step 0 "))
            driver.execute_script("window.typhoon.redraws.length = 0")
            steps = min(args.steps, last)
            for step in range(1, steps + 1):
                driver.find_element(By.ID, "next").click()
                WebDriverWait(driver, 30, poll_frequency=0.01).until(
                    lambda d: d.find_element(By.ID, "where").text.startswith(f"step {step} "))
            replay_times = driver.execute_script("return window.typhoon.redraws.slice()")
            floor = statistics.median(driver.execute_script(FLOOR_JS))
    finally:
        driver.quit()
        service.stop()
    floor = max(floor, 0.01)
    print(f"whole-map redraw in headless Chromium; floor (140 bare hexagons in the same SVG): median {floor:.2f} ms")
    print(summary("live", live_times, floor))
    print(summary("replay", replay_times, floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
