"""A mistyped table id in the address (``?table=``) says "no such table" instead of looking like an empty live table.
Real Chromium against ``unolauncher run``."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import TABLE, PhoneFactory, TableHandle
from .test_dashboard import connected, live


def test_a_mistyped_table_id_says_no_such_table(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    page = phones.open(dashboard_url + "?table=webtset")  # a typo
    connected(page)  # the broker is reachable …
    expect(page.locator("#banner")).to_contain_text("No such table: “webtset”", timeout=10_000)  # … the table is not
    right = phones.open(dashboard_url + f"?table={TABLE}")
    live(right)
    expect(right.locator("#btn-undo")).to_be_enabled()  # the real table: its daemon is online
    assert right.locator("#banner").get_attribute("data-no-table") is None
