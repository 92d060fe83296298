"""Take headless-Chromium screenshots of each dashboard page into screenshots/."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_harness import browser_page, running_app, wait_for_app  # noqa: E402

SHOTS = {
    "explore-none": "/?q=return+policy+days&fixes=none&expect=returns-2026&evidence=30+days&k=1",
    "explore-all": "/?q=warehuse+sync&fixes=all&expect=inventory&evidence=15+minutes&k=2",
    "suite": "/suite?fixes=fuzzy",
    "documents": "/documents",
}
#: Buttons to click before the screenshot (long work the page only runs on request).
CLICKS = {"suite": ["Search for the smallest breaking corruption"]}


def main() -> None:
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    names = sys.argv[1:] or list(SHOTS)
    with running_app() as url, browser_page(height=2000) as page:
        for name in names:
            page.goto(url + SHOTS[name])
            wait_for_app(page)
            for label in CLICKS.get(name, []):
                page.get_by_role("button", name=label).click()
                page.wait_for_timeout(1000)
                wait_for_app(page)
            page.wait_for_timeout(2500)
            page.screenshot(path=str(out / f"{name}.png"), full_page=True)
            print(f"wrote screenshots/{name}.png")


if __name__ == "__main__":
    main()
