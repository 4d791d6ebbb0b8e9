"""Issue 11 (operator console) in Chromium against a real server (in-thread uvicorn, temp SQLite
seeded with four settled coups over two shoes and two UTC days, see
``tests/server/test_reports.py``): the operator signs in on /operator, sees a player's live bet
and the house's exposure, pauses the table, credits and suspends the player (whose open bet is
given back and whose session ends), reads the hold report with its chart, and the audit log, in
French then Italian; at desktop and tablet widths. Screenshots go to ``test-output/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.support import LiveServer, fast_settings, running, wait_until
from server.test_reports import _seed

from .a11y import violations

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1366, "height": 900}
TABLET = {"width": 820, "height": 1180}


def _no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    wide = page.evaluate("""(vw) => [...document.querySelectorAll('body *')].filter((n) => {
        const r = n.getBoundingClientRect(); return r.width && r.right > vw + 1; })
        .slice(0, 5).map((n) => n.tagName + '#' + n.id + '.' + n.className)""",
                         page.viewport_size["width"])
    assert width <= page.viewport_size["width"] + 1, (width, wide)


def test_issue11_operator_console_in_chromium(browser: Any, output_dir: Path,
                                              tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'console.sqlite3'}"
    table_id = _seed(url)
    with running(fast_settings(url, betting_seconds=60)) as live:
        _drive(live, browser, output_dir, table_id)


def _drive(live: LiveServer, browser: Any, output_dir: Path, table_id: int) -> None:
    lea = live.signup("lea")
    watcher = live.watch(table_id)  # a spectator: suspending lea closes her own sockets (4401)
    try:
        opened = watcher.next("round-opened")
        assert live.bet(lea, table_id, "banco", 2500).status_code == 200
        context = browser.new_context(viewport=DESKTOP, locale="fr-FR")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{live.url}/operator")
        # a player cannot get in
        page.fill("input[name=username]", "lea")
        page.fill("input[name=password]", "secret1")
        page.click("#login-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('login-error').textContent.length > 0")
        assert page.text_content("#login-error") == "Réservé à l'opérateur de la salle."
        page.fill("input[name=username]", "operator")
        page.fill("input[name=password]", "operator-secret")
        page.click("#login-form button[type=submit]")
        card = page.locator(f"article[data-table='{table_id}']")
        card.locator(".spots li").wait_for()
        assert "lea" in card.locator(".spots").inner_text()
        assert "25,00" in card.locator(".spots").inner_text()
        exposure = card.locator(".exposure").inner_text()
        assert "−25,00" in exposure  # worst: a Banco win pays 25 €
        page.screenshot(path=str(output_dir / "operator-tables-desktop.png"), full_page=True)
        # The window the table deals, not the settings' 15 s: serve --betting-seconds 60.
        assert card.locator(".window").get_attribute("data-seconds") == "60"
        assert "60 s (fixée au lancement du serveur" in card.locator(".window").inner_text()
        # Issue 19: the card is updated in place; keyboard focus stays on the pause button.
        card.locator(".pause-button").focus()
        page.wait_for_timeout(1700)  # at least one refresh
        assert page.evaluate("document.activeElement.classList.contains('pause-button')")
        page.keyboard.press("Enter")
        card.locator(".badge.paused").wait_for()
        assert page.evaluate("document.activeElement.classList.contains('pause-button')")
        assert live.http.get("/api/tables").json()[0]["paused"] is True
        # the settings form: Égalité 9:1 from the next shoe (kept while the card refreshes)
        card.locator("summary").click()
        card.locator("select[name=tie_pays]").select_option("9")
        page.evaluate("document.activeElement.blur()")
        page.wait_for_timeout(1700)  # one refresh of the card: the choice is still there
        assert card.locator("select[name=tie_pays]").input_value() == "9"
        card.locator(".rules-form button[type=submit]").click()
        wait_until(lambda: live.http.get("/api/tables").json()[0]["next_rules"]["tie_pays"] == 9)
        # the "Saved" note and a value typed (not saved yet) survive the refreshes
        card.locator(".form-note.pos").wait_for()
        card.locator("input[name=decks]").fill("6")
        page.wait_for_timeout(1700)
        assert card.locator(".form-note").inner_text() == "Enregistré."
        assert card.locator("input[name=decks]").input_value() == "6"
        assert page.evaluate("document.activeElement.name") == "decks"
        card.locator("input[name=decks]").fill("8")

        # players: credit 5 €, then suspend (the open Banco bet is given back)
        page.click("#tabs button[data-tab=players]")
        page.fill("#player-search", "le")
        page.wait_for_function("() => document.querySelectorAll('#players tr[data-player]').length === 1")
        row = page.locator("tr[data-player=lea]")
        row.locator("input").fill("5")
        row.locator(".credit-button").click()
        page.wait_for_function("() => document.querySelector('tr[data-player=lea]')"
                               "?.textContent.includes('980,00')")
        row.locator(".suspend-button").click()
        page.wait_for_function("() => document.querySelector('tr[data-player=lea]')"
                               "?.textContent.includes('Suspendu')")
        assert live.http.get("/api/me", headers=lea.headers).status_code == 401
        totals = watcher.next("bet-totals", where=lambda m: m["coup_id"] == opened["coup_id"]
                              and m["totals"]["banco"] == 0)
        assert totals["spots"] == 0
        row.locator("button.link-button").click()
        page.locator("#player-history tr").nth(3).wait_for()
        history = page.inner_text("#player-history")
        assert "Remboursement" in history and "Crédit" in history and "Bienvenue" in history
        page.screenshot(path=str(output_dir / "operator-players-desktop.png"), full_page=True)
    finally:
        watcher.close()

    # reports: the seeded table's hold beside the theoretical edge, and the chart
    page.click("#tabs button[data-tab=reports]")
    line = page.locator(f"#report-tables tr[data-table='{table_id}']")
    line.wait_for()
    assert "14,29 %" in line.inner_text()  # 10 € won on 70 € handle (tests/server/test_reports.py)
    # issue 20: per player, the theoretical win comps are based on (Bob: 20 € Banco at 1.4548 %
    # and 20 € Égalité at 14.4382 %: 3.18 €), highest first, the average bet and the pace
    page.locator("#report-players tr[data-player]").nth(2).wait_for()
    names = page.eval_on_selector_all("#report-players tr[data-player] td:first-child",
                                      "cells => cells.map(c => c.textContent)")
    assert names[:3] == ["bob", "cara", "ann"]
    bob = page.locator("#report-players tr[data-player]").first.inner_text()
    assert "3,18" in bob and "20,00" in bob and "80" in bob, bob  # 2 coups in 1½ min
    line.click()
    page.locator("#hold-chart svg .point").nth(1).wait_for()
    assert page.locator("#hold-chart svg polygon.band").count() == 1
    assert page.locator("#hold-chart svg path.edge").count() == 1
    assert "Sabot 2" in page.inner_text("#hold-chart")
    page.screenshot(path=str(output_dir / "operator-reports-desktop.png"), full_page=True)
    page.click("#table-report .toggle button[data-by=day]")
    page.wait_for_function("() => document.querySelector('#hold-chart').textContent.includes('2026-11-30')")
    page.click("#report-tables tr[data-table=room]")  # the whole room, per day
    page.wait_for_function("() => document.querySelector('#table-report .toggle button[data-by=shoe]')"
                           ".hidden && document.querySelectorAll('#hold-chart .point').length === 2")

    # the audit log, then the console in Italian
    page.click("#tabs button[data-tab=audit]")
    page.locator("#audit tr[data-action=player-suspend]").wait_for()
    actions = page.eval_on_selector_all("#audit tr[data-action]", "rows => rows.map(r => r.dataset.action)")
    assert actions == ["player-suspend", "player-credit", "table-rules", "table-pause"]
    # Issue 19: sentences with euros and names, never JSON or cents.
    audit = page.inner_text("#audit")
    assert "{" not in audit and "#" not in audit, audit
    credit = page.inner_text("#audit tr[data-action=player-credit]").replace("\xa0", " ") \
        .replace("\u202f", " ")
    assert "Joueur lea" in credit and "+5,00 €" in credit and "975,00 € → 980,00 €" in credit
    assert "Égalité paie 8:1 → 9:1" in page.inner_text("#audit tr[data-action=table-rules]")
    page.click(".langs button[data-lang=it]")
    page.wait_for_function(
        "() => document.querySelector('#tabs button[data-tab=audit]').textContent === 'Registro'")
    page.locator("#audit tr td", has_text="Giocatore sospeso").wait_for()
    page.screenshot(path=str(output_dir / "operator-audit-it.png"), full_page=True)
    _no_sideways_scroll(page)

    # tablet width: the table cards in one column, the report still readable
    page.set_viewport_size(TABLET)
    page.click("#tabs button[data-tab=tables]")
    page.locator(f"article[data-table='{table_id}'] .badge.paused").wait_for()
    _no_sideways_scroll(page)
    page.screenshot(path=str(output_dir / "operator-tables-tablet.png"), full_page=True)
    page.click("#tabs button[data-tab=reports]")
    page.locator(f"#report-tables tr[data-table='{table_id}']").click()
    page.locator("#hold-chart svg .point").first.wait_for()
    _no_sideways_scroll(page)
    page.screenshot(path=str(output_dir / "operator-reports-tablet.png"), full_page=True)

    # Issue 19, a phone in Spanish: the hold chart's legend and the "Dealt by" select are whole.
    page.set_viewport_size({"width": 360, "height": 740})
    page.click(".langs button[data-lang=es]")
    page.locator(f"#report-tables tr[data-table='{table_id}']").click()
    page.locator("#hold-chart svg .point").first.wait_for()
    page.wait_for_timeout(300)
    cut = page.evaluate("""() => { const svg = document.querySelector('#hold-chart svg')
        .getBoundingClientRect();
      return [...document.querySelectorAll('#hold-chart .legend')].map((n) => n.getBBox())
        .filter((b) => b.x + b.width > svg.width * (document.querySelector('#hold-chart svg')
          .viewBox.baseVal.width / svg.width) + 0.5).length; }""")
    assert cut == 0
    _no_sideways_scroll(page)
    page.click("#tabs button[data-tab=tables]")
    select = page.locator("#new-table select[name=dealing]").bounding_box()
    assert select["x"] >= 0 and select["x"] + select["width"] <= 360, select
    _no_sideways_scroll(page)
    page.screenshot(path=str(output_dir / "operator-phone-es.png"), full_page=True)
    assert errors == []
    context.close()


def test_issue11_hold_chart_series_is_cumulative_with_the_95_band(browser: Any,
                                                                   static_url: str) -> None:
    """holdchart.js: the cumulative hold, edge and band after each point, computed by hand."""
    page = browser.new_page()
    page.goto(f"{static_url}/operator.html")
    found = page.evaluate("""async () => {
        const chart = await import('/js/holdchart.js');
        const rows = [
          {label: 'a', handle: 10000, house_win: 300, expected_win: 150, sd: 300},
          {label: 'b', handle: 0, house_win: 0, expected_win: 0, sd: 0},
          {label: 'c', handle: 30000, house_win: -100, expected_win: 450, sd: 400}];
        const points = chart.holdSeries(rows);
        const exact = chart.holdSeries([{label: 'd', handle: 10000, house_win: 300,
          expected_win: 150, sd: 300, cumulative_band: [-0.05, 0.07]}]);
        const svg = chart.holdChartSvg(points, {width: 400, height: 200});
        return {points, exact, circles: (svg.match(/<circle/g) || []).length,
                empty: chart.holdChartSvg([], {words: {empty: 'nothing'}})};
    }""")
    page.close()
    first, second = found["points"]
    assert (first["label"], second["label"]) == ("a", "c")  # the point with no handle is left out
    assert first["hold"] == pytest.approx(0.03) and first["edge"] == pytest.approx(0.015)
    assert first["high"] == pytest.approx(0.015 + 1.959964 * 300 / 10000)
    assert second["hold"] == pytest.approx(200 / 40000)  # (300 − 100) / (10,000 + 30,000)
    assert second["edge"] == pytest.approx(600 / 40000)
    assert second["low"] == pytest.approx(600 / 40000 - 1.959964 * 500 / 40000)  # √(300²+400²)
    assert found["circles"] == 2 and "nothing" in found["empty"]
    # issue 20: the server's band from the distribution of the win, where it gives one
    assert (found["exact"][0]["low"], found["exact"][0]["high"]) == (-0.05, 0.07)


def test_issue11_operator_sets_up_a_hand_dealt_table_and_its_dealer(browser: Any, output_dir: Path,
                                                                     tmp_path: Path) -> None:
    """Issue 11, from the console alone: a hand-dealt table, a dealer account, the table
    assigned to it (each in the audit log); the dealer then signs in on /dealer and drives that
    table. Spanish console, at desktop, tablet and phone widths."""
    url = f"sqlite:///{tmp_path / 'dealers.sqlite3'}"
    with running(fast_settings(url, default_tables=("Sanremo",))) as live:
        context = browser.new_context(viewport=DESKTOP, locale="es-ES")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live.url}/operator")
        page.click(".langs button[data-lang=es]")
        page.fill("#login-form input[name=username]", "operator")
        page.fill("#login-form input[name=password]", "operator-secret")
        page.click("#login-form button[type=submit]")
        page.locator("article[data-table]").first.wait_for()
        # a table dealt by a person from a real shoe
        page.fill("#new-table input[name=name]", "Salón privado")
        page.select_option("#new-table select[name=dealing]", "dealer")
        page.click("#new-table button[type=submit]")
        page.locator("article[data-table] .badge.hand-dealt").wait_for()
        tables = live.http.get("/api/tables").json()
        hand_dealt = [t for t in tables if t["name"] == "Salón privado"]
        assert [t["dealing"] for t in hand_dealt] == ["dealer"]
        table_id = hand_dealt[0]["id"]
        # the dealers' tab: none yet, then one, then the table assigned to it
        page.click("#tabs button[data-tab=dealers]")
        page.locator("#dealers td", has_text="Todavía no hay crupieres.").wait_for()
        page.fill("#new-dealer input[name=username]", "lucia")
        page.fill("#new-dealer input[name=password]", "abc")  # too short: one sentence
        page.select_option("#new-dealer select[name=lang]", "it")
        page.click("#new-dealer button[type=submit]")
        page.locator("#notice:not([hidden])").wait_for()
        assert page.inner_text("#notice").endswith(".")
        page.fill("#new-dealer input[name=password]", "croupier1")
        page.click("#new-dealer button[type=submit]")
        row = page.locator("tr[data-dealer=lucia]")
        row.wait_for()
        assert "IT" in row.inner_text() and "Sanremo" not in row.inner_text()  # server-dealt
        row.locator(f"input[type=checkbox][value='{table_id}']").check()
        row.locator(".assign-button").click()
        row.locator(".form-note.pos").wait_for()
        _no_sideways_scroll(page)
        page.screenshot(path=str(output_dir / "operator-dealers-es.png"), full_page=True)
        page.set_viewport_size(TABLET)
        _no_sideways_scroll(page)
        page.click("#tabs button[data-tab=tables]")
        page.locator("article[data-table] .badge.hand-dealt").wait_for()
        _no_sideways_scroll(page)
        page.screenshot(path=str(output_dir / "operator-new-table-tablet.png"))
        for width in (320, 390):  # and on a phone, every tab stays inside the screen
            page.set_viewport_size({"width": width, "height": 800})
            for tab in ("tables", "players", "reports", "dealers", "audit"):
                page.click(f"#tabs button[data-tab={tab}]")
                page.locator(f"#tab-{tab}:not([hidden])").wait_for()
                page.wait_for_timeout(150)
                _no_sideways_scroll(page)
        page.screenshot(path=str(output_dir / "operator-dealers-320.png"), full_page=True)
        page.set_viewport_size(TABLET)
        # Issue 19: every tab without a critical or serious axe-core violation, one h1.
        found = {}
        for tab in ("tables", "players", "reports", "dealers", "audit"):
            page.click(f"#tabs button[data-tab={tab}]")
            page.locator(f"#tab-{tab}:not([hidden])").wait_for()
            if tab == "reports":
                page.locator("#report-tables tr[data-table]").first.click()
                page.locator("#hold-chart svg").wait_for()
            if tab == "players":
                page.locator("#players tr").first.wait_for()
            page.wait_for_timeout(200)
            found[tab] = violations(page)
        assert found == {tab: [] for tab in found}, found
        assert page.locator("h1").count() == 1
        # the audit log names both actions
        page.click("#tabs button[data-tab=audit]")
        page.locator("#audit tr[data-action=dealer-tables]").wait_for()
        actions = page.eval_on_selector_all("#audit tr[data-action]",
                                            "rows => rows.map(r => r.dataset.action)")
        assert actions[:3] == ["dealer-tables", "dealer-create", "table-create"]
        assert "Mesas del crupier" in page.inner_text("#audit")
        assert errors == []
        context.close()
        # the dealer drives the table assigned, from the dealer page
        dealer = browser.new_page(viewport={"width": 1024, "height": 768})
        dealer.goto(f"{live.url}/dealer?lang=it")
        dealer.wait_for_selector("#auth-username")
        assert violations(dealer) == []
        dealer.fill("#auth-username", "lucia")
        dealer.fill("#auth-password", "croupier1")
        dealer.click("#auth-form button[type=submit]")
        dealer.wait_for_selector("#desk:not([hidden])")
        dealer.wait_for_function("(name) => document.getElementById('table-name').textContent "
                                 "=== name", arg="Salón privado")
        dealer.wait_for_timeout(300)
        assert violations(dealer) == []
        assert dealer.locator("h1").count() == 1
        dealer.close()
