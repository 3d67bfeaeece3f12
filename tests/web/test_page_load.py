"""Loading the page over a flaky Wi-Fi: a script that does not arrive is retried and then named with a Try again
button (instead of "connecting…" forever), and a page reloaded while offline shows the app shell, not the browser's
error page. Real Chromium against ``unolauncher run``; the network failures are Chromium's own (an aborted request,
the context set offline)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import PhoneFactory, TableHandle
from .games import run, table_game
from .test_dashboard import live


def test_a_script_that_does_not_load_is_retried_then_named_with_try_again(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    context = phones.browser.new_context(viewport={"width": 360, "height": 640}, service_workers="block")
    phones.contexts.append(context)
    fetched: list[str] = []

    def drop(route: Any) -> None:
        fetched.append(route.request.url)
        route.abort("connectionreset")

    context.route("**/js/views.js", drop)
    phones.allow("Failed to load resource")  # Chromium logs each dropped request as a console error
    phones.allow("net::ERR_CONNECTION_RESET")
    page = phones.open(dashboard_url, context)
    error = page.locator("#boot-error")
    # The module graph fails as a whole: the file named is js/main.js (what imports it) or js/views.js itself.
    expect(error).to_contain_text(re.compile(r"could not load js/(main|views)\.js \(3 tries\)"), timeout=15_000)
    assert len({*fetched}) == 1 and len(fetched) >= 3  # the first load and two retries asked for it again
    expect(page.locator("#conn")).to_have_attribute("data-state", "connecting")
    context.unroute("**/js/views.js")
    error.get_by_role("button", name="Try again").click()
    live(page)  # the Wi-Fi is back: one tap and the page runs
    expect(page.locator("#boot-error")).to_have_count(0)
    phones.shot(page, "boot-retried")


def test_a_reload_while_offline_shows_the_app_shell(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    run(table, table_game(["ann", "bob"], dealer="bob"))
    context = phones.browser.new_context(viewport={"width": 360, "height": 640})
    phones.contexts.append(context)
    page = phones.open(dashboard_url, context)
    live(page)
    page.wait_for_function(
        "navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready.then(() => true)"
    )
    page.evaluate("navigator.serviceWorker.ready.then(() => caches.has('unolauncher-shell-v1'))")
    page.reload()  # once controlled by the worker
    live(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    phones.allow("ERR_INTERNET_DISCONNECTED")
    phones.allow("WebSocket")
    phones.allow("Failed to load resource")
    context.set_offline(True)
    page.reload()
    expect(page.locator(".tabs")).to_be_visible()  # the app, not Chromium's "No internet" page
    expect(page.locator("#btn-play")).to_be_attached()
    expect(page.locator("#conn")).not_to_have_attribute("data-state", "online")
    phones.shot(page, "offline-shell")
    context.set_offline(False)
