"""The simulator's HTML report in Debian's Chromium (Playwright): one page readable on a
phone (390 px: no horizontal overflow, its plots drawn) and on a desktop.

The 390 px screenshot goes to ``out/playwright/simulator-report.png``; with
``RONDE_DOCS_SHOTS=1`` it also replaces ``docs/simulator-report.png``, the picture of
docs/simulator.md."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ronde import simcompare, simreport

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTEFACTS = Path(os.environ.get("RONDE_ARTEFACTS", "out/playwright"))
DOCS = Path(__file__).resolve().parent.parent / "docs" / "simulator-report.png"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium; CI installs it)",
)


def test_the_report_reads_on_a_phone(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    variants = simcompare.variants(["A9=grace_60"])
    run = simcompare.run(seed=7, games=int(os.environ.get("RONDE_DOCS_GAMES", "6")),
                         players=28, variants=variants)  # fmt: skip
    simreport.write_report(run, tmp_path)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            for width in (390, 1280):
                page: Any = browser.new_page(viewport={"width": width, "height": 800})
                page.goto((tmp_path / "rapport.html").as_uri())
                assert page.locator("h1").inner_text() == "Règles maison comparées"
                assert page.locator("svg.plot").count() == 2
                box = page.locator("svg.plot").first.bounding_box()
                assert box is not None and 200 < box["width"] <= width
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"{overflow} px too wide at {width} px"
                if width == 390:
                    shot = ARTEFACTS / "simulator-report.png"
                    page.screenshot(path=str(shot), full_page=False)
                    if os.environ.get("RONDE_DOCS_SHOTS") == "1":
                        page.set_viewport_size({"width": 390, "height": 1500})
                        page.screenshot(path=str(DOCS), full_page=False)
                page.close()
        finally:
            browser.close()
