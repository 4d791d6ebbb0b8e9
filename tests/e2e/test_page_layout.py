"""The player's page at every screen size in every language (issue 10), on a fake server.

One page, resized to 320, 390, 768, 1024, 1280 and 1920 px and switched through fr, it, es and
en, in two states: a settled coup (three cards a side, the payout lines with a lost Lion Bonus's
reason, the recall with a void and an open coup on two tables) and an open round with bets on
three boxes. At each: no horizontal scrolling, no element outside the window, no text
overflowing its box, and a refusal's message inside the window (not below the fold). The
sign-up screen leaves the language buttons usable; a silent connection (pings without pongs) is
noticed within seconds, shown, and clicks then say so in the player's language; the ask buttons
draw the would-be marks on every road. Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .fake import ORIGIN, FakeServer, coup, snapshot

pytestmark = pytest.mark.e2e

WIDTHS = [320, 390, 768, 1024, 1280, 1920]
LANGS = ["fr", "it", "es", "en"]
SIGN_UP = {"fr": "Créer un compte", "it": "Registrati", "es": "Crear cuenta", "en": "Sign up"}
OPEN_BETS = {"banco": 5000, "egalite": 1000, "lion-banco": 1500}

#: every visible element inside the window, and no text wider than its box
LAYOUT_PROBLEMS = """(vw) => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '');
  const bad = [];
  if (document.documentElement.scrollWidth > vw) bad.push('page scrolls sideways: '
    + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.road-scroll, .visually-hidden, .chip-fly, [hidden]')) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.left < -0.5 || r.right > vw + 0.5) bad.push(`${name(el)} outside: ${r.left}..${r.right}`);
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (text && style.display !== 'inline' && !['auto', 'scroll'].includes(style.overflowX)
        && el.scrollWidth > el.clientWidth + 1) {
      bad.push(`${name(el)} text overflows: ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  // Nothing in the header covers anything else (at 320 px log-out once covered EN).
  const parts = [...document.querySelectorAll('.topbar .brand, #table-select, .balance-box, '
    + '.langs button, #sound, #join, .username, #logout')].filter((el) => el.offsetParent
    && getComputedStyle(el).visibility !== 'hidden').map((el) => [name(el) + (el.dataset.lang || ''),
    el.getBoundingClientRect()]);
  for (let i = 0; i < parts.length; i += 1) {
    for (let j = i + 1; j < parts.length; j += 1) {
      const [a, ra] = parts[i];
      const [b, rb] = parts[j];
      if (ra.width && rb.width && ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5
          && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5) bad.push(`${a} covers ${b}`);
    }
  }
  return bad.slice(0, 12);
}"""


def _recall() -> list[dict[str, Any]]:
    """Newest first: the settled coup on the felt, an open coup elsewhere, a void one."""
    settled = coup(25)
    settled["coup_in_shoe"] = 25
    return [settled, coup(31, status="open", table_id=2), coup(23, status="void")]


@pytest.fixture
def fake(browser: Any) -> Iterator[tuple[Any, FakeServer]]:
    server = FakeServer(snapshot=snapshot(phase="settled"), recall=_recall())
    last = coup(25)
    last["coup_in_shoe"] = 25
    server.snapshot["last_result"] = last
    server.snapshot["cards"] = [{"side": s, "position": p, "card": c}
                                for s in ("punto", "banco")
                                for p, c in enumerate(last[s]["cards"])]
    context = browser.new_context(viewport={"width": 1920, "height": 1000}, locale="fr-FR")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("#payouts tr.line")
    yield page, server
    assert errors == []
    context.close()


def _sweep(page: Any, state: str, output_dir: Path, *, refusal: bool) -> None:
    for width in WIDTHS:
        height = 740 if width < 700 else 1000
        page.set_viewport_size({"width": width, "height": height})
        for lang in LANGS:
            page.click(f"[data-lang='{lang}']")
            page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
            page.wait_for_timeout(60)
            problems = page.evaluate(LAYOUT_PROBLEMS, width)
            assert problems == [], (state, width, lang)
            if refusal:  # a refused tap: the sentence is inside the window, even on a phone
                page.click("[data-box=egalite]")
                page.wait_for_selector("#message:not([hidden])")
                box = page.locator("#message").bounding_box()
                assert box["y"] >= 0 and box["y"] + box["height"] <= height, (width, lang, box)
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, (width, lang, box)
                assert page.evaluate(LAYOUT_PROBLEMS, width) == [], (state, width, lang)
            if lang == "it" or width in (320, 768):
                page.screenshot(path=str(output_dir / f"page-{state}-{width}-{lang}.png"),
                                full_page=True)
            page.evaluate("document.querySelector('#message').hidden = true")


def test_issue10_every_width_and_language_fits(fake: tuple[Any, FakeServer],
                                               output_dir: Path) -> None:
    page, server = fake
    # The payouts: the lost Lion Bonus says why (Punto won by 1: L5 needs a natural or 4+).
    page.click("[data-lang='en']")
    lion = page.locator("#payouts tr.line[data-bet='lion-punto'] .line-pays").text_content()
    assert lion == "Player won by 1: needs a natural or 4+"
    # The recall: a void coup and an open one say so (no "null"), each coup names its table.
    recall = page.locator("#recall").text_content() or ""
    assert "null" not in recall and "bet." not in recall
    assert page.get_attribute(".recall-item[data-coup='23']", "data-status") == "void"
    assert "Sanremo" in (page.locator(".recall-item[data-coup='23'] .recall-where").text_content()
                         or "")
    assert "Enghien" in (page.locator(".recall-item[data-coup='31'] .recall-where").text_content()
                         or "")
    assert page.locator(".recall-item[data-coup='23'] .recall-winner").text_content() == "void"
    _sweep(page, "settled", page_output(output_dir), refusal=False)
    # Every 40 px from 320 to 1920 (the tablet widths 650-1000 included), in Italian.
    page.click("[data-lang='it']")
    for width in range(320, 1921, 40):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(30)
        assert page.evaluate(LAYOUT_PROBLEMS, width) == [], width
    # The sideways third card is a 9 whose index is underlined (it never reads as a 6).
    assert page.locator("#cards-punto .pos-2 .card[data-card='9D'] .index-underline").count() == 2

    # An open round with bets on three boxes; a tap refused by the server (below the minimum).
    server.bet_answers["POST /api/tables/1/bets"] = (422, {"error": {
        "code": "below-minimum", "message": "The stake is below this box's minimum."}})
    page.set_viewport_size({"width": 1920, "height": 1000})
    page.click("[data-lang='en']")
    server.send({"type": "round-opened", "round_no": 26, "coup_id": 26, "coup_in_shoe": 26,
                 "last_coup": False, "deadline": int(time.time() * 1000) + 600_000,
                 "server_time": int(time.time() * 1000), "seconds": 15})
    server.send({"type": "my-bets", "coup_id": 26, "my_bets": OPEN_BETS, "balance": 79_500})
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='1500']")
    # The payouts panel lists the bets waiting for their result (not "no bet on this coup").
    assert page.get_attribute("#payouts", "data-pending") == "true"
    assert page.locator("#payouts .pending-bet").count() == 3
    assert page.get_attribute("#balance", "data-cents") == "79500"
    assert page.get_attribute("#staked", "data-cents") == "7500"
    # The refusal names the stake and the minimum (M2).
    page.click(".chip-button[data-chip='1000']")
    page.click("[data-box=egalite]")
    page.wait_for_selector("#message:not([hidden])")
    assert page.locator("#message").text_content() == (
        "The stake is below this box's minimum. (stake €20.00; minimum €10.00)")
    _sweep(page, "open", page_output(output_dir), refusal=True)


def page_output(output_dir: Path) -> Path:
    folder = output_dir / "page"
    folder.mkdir(exist_ok=True)
    return folder


def test_issue10_sign_up_screen_keeps_languages_and_a_spectator_watches(browser: Any) -> None:
    server = FakeServer(snapshot=snapshot(phase="open"))
    context = browser.new_context(viewport={"width": 390, "height": 800}, locale="fr-FR")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("#auth:not([hidden])")
    for lang in ("es", "en"):  # a real click: nothing covers the buttons
        page.click(f"[data-lang='{lang}']")
        page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
        assert page.text_content("#auth-title") == SIGN_UP[lang]
    # Watch without an account: the table, no token on the socket, and a tap asks to sign up.
    page.click("#auth-watch")
    page.wait_for_selector("#app:not([hidden])")
    page.wait_for_selector("#spectator:not([hidden])")
    page.wait_for_selector("[data-road=bead][data-cells='24']")
    assert not page.is_visible("#auth")
    page.click("[data-box=banco]")
    page.wait_for_selector("#auth:not([hidden])")
    assert all(method == "GET" for method, _, _ in server.requests), "a spectator sends no bet"
    page.keyboard.press("Escape")  # back to watching
    page.wait_for_selector("#auth", state="hidden")
    assert page.is_visible("#felt")
    assert server.errors == []
    context.close()


def test_issue10_a_silent_connection_is_noticed_and_clicks_say_so(browser: Any) -> None:
    server = FakeServer(lang="it", snapshot=snapshot(phase="open", my_bets={"banco": 2500}))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="it-IT")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    # The network goes quiet: pings get no pong. Noticed within a few seconds, not never.
    server.answer_pings = False
    began = time.monotonic()
    page.wait_for_selector("#connection:not([hidden])", timeout=10_000)
    assert time.monotonic() - began < 8
    assert page.get_attribute("body", "data-connection") == "reconnecting"
    assert "Connessione persa" in (page.text_content("#connection") or "")
    # A tap while it is down says so in Italian; nothing is sent.
    sent = len(server.requests)
    page.click("[data-box=punto]")
    page.wait_for_selector("#message:not([hidden])")
    assert page.text_content("#message") == (
        "Server irraggiungibile: non è stato inviato nulla. Riconnessione…")
    assert [r for r in server.requests[sent:] if r[0] != "GET"] == []
    # Meanwhile the coup with the player's bet was dealt and settled (Punto 9-8, Banco lost).
    settled = coup(25)
    server.recall = [settled]
    server.snapshot = {**snapshot(phase="settled", coup_id=25, my_bets={"banco": 2500}),
                       "last_result": settled}
    # The page reconnects by itself (a new socket, a fresh snapshot) once pongs come back, and
    # shows the result it missed instead of the bet "waiting for its result" forever.
    server.answer_pings = True
    page.wait_for_selector("body[data-connection=open]", timeout=15_000)
    assert len(server.sockets) >= 2
    page.wait_for_selector("#payouts[data-coup='25'] tr.line[data-bet='banco']")
    assert server.errors == []
    context.close()


def test_issue10_road_predictions_draw_the_next_mark_on_every_road(browser: Any) -> None:
    server = FakeServer(lang="en", snapshot=snapshot(phase="open"))
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-GB")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("[data-road=bead][data-cells='24']")
    # An open round with no bet yet: the hint says what to do.
    assert page.text_content("#hint") == "Pick a chip, then tap a box."
    # Counts and percentages (24 coups: 9 Banco, 12 Punto, 3 ties; naturals every 5th).
    stats = page.eval_on_selector_all(".shoe-stats [data-stat]", """nodes => Object.fromEntries(
        nodes.map(n => [n.dataset.stat, [n.dataset.count, n.dataset.percent]]))""")
    assert stats["banco"] == ["9", "37.5"] and stats["punto"] == ["12", "50"]
    assert stats["egalite"] == ["3", "12.5"] and stats["natural"] == ["5", "20.8"]
    page.click(".ask[data-ask='banco']")
    page.wait_for_selector(".ask[data-ask='banco'][aria-pressed='true']")
    previews = page.eval_on_selector_all(
        "[data-road]", "roads => Object.fromEntries(roads.map(r => [r.dataset.road, "
                       "r.querySelectorAll('.preview').length]))")
    # The bead plate and big road get the Banco mark; each derived road the colour its ask
    # button shows (a road that would add nothing yet shows none).
    marks = page.eval_on_selector_all(".ask[data-ask='banco'] svg.ask-mark",
                                      "svgs => svgs.map(s => s.childElementCount)")
    assert previews == {"bead": 1, "big": 1, "bigEyeBoy": marks[0], "smallRoad": marks[1],
                        "cockroachPig": marks[2]}
    assert sum(marks) >= 2
    page.keyboard.press("Enter")  # the focused ask button again: the preview goes
    page.wait_for_selector(".ask[data-ask='banco'][aria-pressed='false']")
    assert page.locator(".road .preview").count() == 0
    assert server.errors == []
    context.close()


def _play_a_coup(server: FakeServer) -> None:
    """One coup as the server tells it: open, a bet, closed, dealt, settled (Banco wins 8-9)."""
    now = int(time.time() * 1000)
    dealt = coup(26)
    dealt.update({"winner": "banco", "punto": {"cards": ["4H", "4S"], "total": 8},
                  "banco": {"cards": ["9C", "KD"], "total": 9}, "natural": True})
    for message in (
            {"type": "round-opened", "round_no": 26, "coup_id": 26, "coup_in_shoe": 26,
             "last_coup": False, "deadline": now + 600_000, "server_time": now, "seconds": 15},
            {"type": "my-bets", "coup_id": 26, "my_bets": {"banco": 5000}, "balance": 82_000},
            {"type": "bets-closed", "round_no": 26, "coup_id": 26},
            {"type": "coup-dealt", "coup": dealt, "cards_left": 240, "cut_card_out": False},
            {"type": "settlement", "coup_id": 26, "balance": 91_750, "lines": [
                {"bet": "banco", "stake": 5000, "outcome": "win", "net": 4750, "pays": "1:1",
                 "detail": "win", "returned": 9750}]},
            {"type": "round-settled", "round_no": 26, "coup_id": 26, "winner": "banco",
             "shoe_finished": False}):
        server.send(message)


COUNT_EFFECTS = """
  window.effects = {audio: 0, flights: 0, said: []};
  const Real = window.AudioContext;
  window.AudioContext = function (...args) { window.effects.audio += 1; return new Real(...args); };
  new MutationObserver((records) => { for (const r of records) {
    for (const n of r.addedNodes) {
      if (n.classList && n.classList.contains('chip-fly')) window.effects.flights += 1;
    }
    if (r.target.id === 'announce' && r.target.textContent) {
      window.effects.said.push(r.target.textContent);
    }
  } }).observe(document, {childList: true, subtree: true});
"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_issue10_outcome_overlay_chips_sound_and_reduced_motion(browser: Any, motion: str) -> None:
    server = FakeServer(lang="en", snapshot=snapshot(phase="settled"))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion=motion)
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    context.add_init_script(COUNT_EFFECTS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    # Sound is off by default: a coup plays no tone.
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    _play_a_coup(server)
    page.wait_for_selector("#outcome:not([hidden])")
    assert page.get_attribute("#outcome", "data-net") == "4750"
    assert page.text_content("#outcome .outcome-title") == "You win"
    assert page.get_attribute("#balance", "data-cents") == "91750"
    assert page.get_attribute(".payout-balance", "data-cents") == "91750"  # header = footer
    assert page.text_content("#status") == "Waiting for the next coup"
    page.click("[data-lang='es']")  # the overlay follows the language too
    assert page.text_content("#outcome .outcome-title") == "Gana"
    page.click("[data-lang='en']")
    page.wait_for_function("() => document.querySelector('#announce').textContent"
                           ".startsWith('You win')")
    effects = page.evaluate("window.effects")
    # Screen readers hear each phase and the result (aria-live), in the player's language.
    assert effects["said"] == ["Place your bets · 15 s", "No more bets", "Banker wins 8 – 9",
                               "You win +€47.50"], effects["said"]
    assert effects["audio"] == 0
    # Chips move to the balance, unless the player asked for less motion.
    assert (effects["flights"] > 0) == (motion == "no-preference"), effects
    # Sound on, remembered after a reload, and a coup then plays its tones.
    page.click("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("body[data-connection=open]")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    _play_a_coup(server)
    page.wait_for_selector("#outcome:not([hidden])")
    assert page.evaluate("window.effects.audio") >= 1
    # A table opened meanwhile appears in the list without a reload (new shoe, reconnection).
    server.extra_tables.append("Deauville")
    server.send({"type": "shoe-started", "shoe_id": 2, "shoe_no": 2, "commitment": "cd" * 32,
                 "cards_left": 308, "cut_index": 296, "burned": 4, "cards": 312})
    page.wait_for_selector("#table-select option:text('Table Deauville')", state="attached")
    assert errors == []
    context.close()


def test_issue10_chips_keep_their_colour_and_stacks_use_the_rack(browser: Any,
                                                                 static_url: str) -> None:
    """A chip's colour follows its value, whatever the rack (the 10 € chip once changed colour
    when the limits changed); a stake is drawn with the rack's own chips (30 € from a rack of
    10/25/50 is three 10s, never 25 + a 5 it lacks)."""
    page = browser.new_page()
    page.route(f"{static_url}/blank", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>money</title>"))
    page.goto(f"{static_url}/blank")
    found = page.evaluate("""async (url) => {
        const m = await import(url);
        const small = m.chipValues({chip_unit: 100, limits: {punto: [100, 50000]}});
        const big = m.chipValues({chip_unit: 100, limits: {punto: [1000, 500000]}});
        return {small, big, colours: [m.chipColour(1000), m.chipColour(1000)],
                thirty: m.chipsFor(3000, [1000, 2500, 5000]),
                seventy: m.chipsFor(7000, [1000, 2500, 5000]),
                none: m.chipsFor(1500, [1000, 2500])};
    }""", f"{static_url}/js/money.js")
    page.close()
    assert 1000 in found["small"] and 1000 in found["big"]
    assert found["small"].index(1000) != found["big"].index(1000)  # another place in the tray
    assert found["colours"][0] == found["colours"][1]  # the same colour
    assert found["thirty"] == [1000, 1000, 1000]
    assert found["seventy"] == [5000, 1000, 1000]
    assert found["none"] is None
