#!/usr/bin/env python3
"""Render the dashboard's home-screen icons (PNG) from ``web/static/icons/icon.svg`` with headless Chromium.

    .venv/bin/python tools/make_icons.py

Writes ``icon-192.png``, ``icon-512.png``, ``apple-touch-icon.png`` (180 px, iOS adds its own rounded corners) and
``icon-maskable-512.png`` (the logo inside the central 80 % safe zone that Android's icon masks keep). Run it after
changing the SVG and commit the PNGs: the Pi serves them as they are.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "controller" / "unolauncher" / "web" / "static" / "icons"
sys.path.insert(0, str(ROOT / "tests"))

from support.binaries import require_binary  # noqa: E402  (after the path set-up above)

BACKGROUND = "#12151f"
# name -> (size in px, logo size as a share of the icon, corner radius as a share)
OUTPUTS = {
    "icon-192.png": (192, 0.86, 0.22),
    "icon-512.png": (512, 0.86, 0.22),
    "apple-touch-icon.png": (180, 0.82, 0.0),
    "icon-maskable-512.png": (512, 0.62, 0.0),
}


def page_html(svg: str, size: int, logo: float, radius: float) -> str:
    inner = int(size * logo)
    sized = svg.replace("<svg ", '<svg width="100%" height="100%" ')
    return (
        "<html><body style='margin:0;background:transparent'>"
        f"<div style='width:{size}px;height:{size}px;background:{BACKGROUND};border-radius:{int(size * radius)}px;"
        "display:grid;place-items:center'>"
        f"<div style='width:{inner}px;height:{inner}px'>{sized}</div>"
        "</div></body></html>"
    )


def main() -> int:
    from playwright.sync_api import sync_playwright

    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=require_binary("chromium"), headless=True, args=args)
        for name, (size, logo, radius) in OUTPUTS.items():
            page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
            page.set_content(page_html(svg, size, logo, radius))
            page.screenshot(path=str(ICONS / name), omit_background=True)
            page.close()
            print(f"{name}: {size}x{size}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
