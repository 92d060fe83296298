"""Take headless-Chromium screenshots of each dashboard page into screenshots/ (1400 px
wide; ``--width 800`` for a laptop). ``--readme`` also copies the README's ones to docs/."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_harness import browser_page, running_app, wait_for_app  # noqa: E402

SHOTS = {
    "start": "/",
    "tour": "/tour",
    "explore-none": "/?q=return+policy+days&fixes=none&expect=returns-2026&evidence=30+days&k=1",
    "explore-all": "/?q=warehuse+sync&fixes=all&expect=inventory&evidence=15+minutes&k=2",
    "explore-flaw": "/",
    "suite": "/suite?fixes=fuzzy",
    "stress": "/stress",
    "documents": "/documents",
    "triage": "/triage",
}
#: Buttons to click before the screenshot (long work the page only runs on request).
CLICKS = {
    "suite": ["Search for the smallest breaking corruption"],
    "stress": ["Run the stress test"],
    "explore-flaw": ["Stale versions"],  # a flaw button: the verdict comes first
}


#: README image → the screenshot it is copied from.
README = {"explore": "explore-flaw", "suite": "suite", "tour": "tour", "stress": "stress"}


def main() -> None:
    import shutil

    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    args = sys.argv[1:]
    readme = "--readme" in args
    width = 1400
    if "--width" in args:
        width = int(args[args.index("--width") + 1])
        del args[args.index("--width") : args.index("--width") + 2]
    names = [a for a in args if not a.startswith("--")] or list(SHOTS)
    with running_app() as url, browser_page(width=width, height=2000) as page:
        for name in names:
            page.goto(url + SHOTS[name])
            wait_for_app(page)
            for label in CLICKS.get(name, []):
                page.get_by_role("button", name=label).click()
                page.wait_for_timeout(1000)
                wait_for_app(page)
                # a long search shows a progress bar until it is done
                page.wait_for_function(
                    "() => !document.querySelector('[data-testid=\"stProgress\"]')",
                    timeout=120_000,
                )
                wait_for_app(page)
            page.wait_for_timeout(2500)
            suffix = "" if width == 1400 else f"-{width}"
            # Streamlit scrolls inside its main element: make the window as tall as the page
            tall = page.evaluate(
                "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
                "[data-testid=\"stAppViewContainer\"]')].map(e => e.scrollHeight), 0)"
            )
            page.set_viewport_size({"width": width, "height": min(max(tall, 1000), 8000)})
            page.wait_for_timeout(600)
            page.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
            page.set_viewport_size({"width": width, "height": 2000})
            print(f"wrote screenshots/{name}{suffix}.png")
    if readme:
        for image, shot in README.items():
            suffix = "" if width == 1400 else f"-{width}"
            shutil.copyfile(out / f"{shot}{suffix}.png", ROOT / "docs" / f"{image}{suffix}.png")
            print(f"copied docs/{image}{suffix}.png")


if __name__ == "__main__":
    main()
