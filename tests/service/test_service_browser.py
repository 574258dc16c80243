"""The page in a real headless browser (Debian's chromium + chromedriver, driven by selenium):
paste a legal and an illegal deck, check the verdicts, click a problem and see its lines
highlighted; screenshots (desktop and phone width) go to the test's tmp dir. Skips, saying why,
when there is no browser."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the service needs the serve extra: pip install '.[serve]'")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install '.[test]')"
)

from support import FIXTURES  # noqa: E402
from test_service import COMMANDER, ILLEGAL_MODERN, LEGAL_MODERN  # noqa: E402
from test_service_server import Server  # noqa: E402

CHROMIUM = (
    os.environ.get("DECKCHECK_CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)
CHROMEDRIVER = os.environ.get("DECKCHECK_CHROMEDRIVER") or shutil.which("chromedriver")
WAIT = 20  # seconds, for any one thing to appear


@pytest.fixture
def browser(tmp_path):
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip(
            "no browser: the page test needs chromium and chromedriver "
            "(Debian: apt-get install chromium chromium-driver)"
        )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except Exception as exc:  # noqa: BLE001 - a browser that cannot start is a skip, said why
        pytest.skip(f"chromium did not start: {str(exc).splitlines()[0]}")
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def paste(driver, text: str) -> None:
    """Put `text` into the decklist as a paste does (value set, input event fired)."""
    driver.execute_script(
        "const t = document.getElementById('decklist'); t.value = arguments[0];"
        "t.dispatchEvent(new Event('input', {bubbles: true}));",
        text,
    )


def test_page_checks_a_legal_and_an_illegal_deck(browser, core_db, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        browser.get(server.base + "/")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "format")).options) > 10)
        unlabelled = browser.execute_script(
            "return [...document.querySelectorAll('input, select, textarea, button')]"
            ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')"
            " && !e.textContent.trim()).map(e => e.id || e.outerHTML)"
        )
        assert unlabelled == []  # every control has a name for screen readers
        fmt = Select(browser.find_element(By.ID, "format"))
        assert not browser.find_element(By.ID, "commander-fields").is_displayed()
        fmt.select_by_value("commander")  # the Commander family shows its fields
        assert browser.find_element(By.ID, "commander-fields").is_displayed()
        paste(browser, COMMANDER)
        browser.find_element(By.ID, "commander1").send_keys("Minsc & Boo, Timeless Heroes")
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Legal in Commander" in d.find_element(By.ID, "verdict").text)
        assert (
            "commander: Minsc & Boo, Timeless Heroes" in browser.find_element(By.ID, "summary").text
        )
        browser.save_screenshot(str(tmp_path / "serve-commander.png"))
        browser.find_element(By.ID, "commander1").clear()
        fmt.select_by_value("modern")
        assert not browser.find_element(By.ID, "commander-fields").is_displayed()

        paste(browser, LEGAL_MODERN)
        browser.find_element(By.ID, "check").click()
        verdict = wait.until(EC.visibility_of_element_located((By.ID, "verdict")))
        wait.until(lambda d: "Legal in Modern" in verdict.text)
        assert "legal" in verdict.get_attribute("class").split()
        assert browser.switch_to.active_element == verdict  # focus moves to the verdict
        browser.save_screenshot(str(tmp_path / "serve-legal.png"))

        # The illegal deck, checked from the keyboard (Ctrl+Enter in the list).
        paste(browser, ILLEGAL_MODERN)
        browser.find_element(By.ID, "decklist").send_keys(Keys.CONTROL, Keys.ENTER)
        wait.until(lambda d: "Not legal in Modern" in d.find_element(By.ID, "verdict").text)
        assert "illegal" in browser.find_element(By.ID, "verdict").get_attribute("class").split()
        banned = browser.find_element(By.CSS_SELECTOR, "li.problem[data-code=banned] button")
        assert "Lurrus of the Dream-Den" in banned.text and "line 2" in banned.text
        assert browser.find_elements(By.CSS_SELECTOR, "#listing li.hl") == []
        banned.send_keys(Keys.ENTER)  # a problem is a button: keyboard-usable
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#listing li.hl"))
        lit = browser.find_elements(By.CSS_SELECTOR, "#listing li.hl")
        assert [li.get_attribute("data-line") for li in lit] == ["2"]
        assert "Lurrus of the Dream-Den" in lit[0].text
        assert banned.get_attribute("aria-pressed") == "true"
        # The unknown name offers its suggestion.
        suggestion = wait.until(
            EC.visibility_of_element_located(
                (By.CSS_SELECTOR, "li.problem[data-code=unknown-card] .suggest button")
            )
        )
        assert suggestion.text == "Lightning Bolt"
        browser.save_screenshot(str(tmp_path / "serve-illegal.png"))

        browser.set_window_size(390, 844)  # a phone
        wait.until(lambda d: d.execute_script("return window.innerWidth") <= 400)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0  # nothing wider than the screen
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(tmp_path / "serve-phone-top.png"))
        browser.execute_script("document.getElementById('verdict').scrollIntoView()")
        browser.save_screenshot(str(tmp_path / "serve-phone.png"))

        # Clicking the suggestion fixes the line and checks again.
        browser.set_window_size(1280, 1000)
        suggestion = browser.find_element(
            By.CSS_SELECTOR, "li.problem[data-code=unknown-card] .suggest button"
        )
        suggestion.click()
        wait.until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, "li.problem[data-code=unknown-card]")
        )
        assert "1 Lightning Bolt" in browser.find_element(By.ID, "decklist").get_attribute("value")

        # A file from the picker (an MTGO .dek) fills the list and is checked as that format.
        dek = FIXTURES / "decklists" / "burn.dek"
        browser.find_element(By.ID, "file").send_keys(str(dek))
        wait.until(lambda d: "<Deck" in d.find_element(By.ID, "decklist").get_attribute("value"))
        browser.find_element(By.ID, "check").click()
        # The .dek's own summary, not the previous list's, once its answer is shown: 72 main
        # (its 12 "Event Ticket" are an unknown name, counted as the size check counts them).
        wait.until(
            lambda d: (
                "Not legal in Modern" in d.find_element(By.ID, "verdict").text
                and "72 main deck" in d.find_element(By.ID, "summary").text
            )
        )
        assert "3 sideboard" in browser.find_element(By.ID, "summary").text
    for name in ("serve-legal.png", "serve-illegal.png", "serve-phone.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    if os.environ.get("DECKCHECK_SCREENSHOTS"):  # keep copies to look at
        out = Path(os.environ["DECKCHECK_SCREENSHOTS"])
        for png in tmp_path.glob("serve-*.png"):
            shutil.copy(png, out / png.name)


def test_page_asks_suggestions_for_the_first_20_unknown_names_only(browser, core_db, tmp_path):
    """One GET v1/cards per unknown name cost the server ~15 ms each: a paste of thousands of
    unknown lines must not become thousands of lookups. The first 20 still get "Did you mean"."""
    import time

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    lookups = (
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('/v1/cards/')).length"
    )
    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        browser.get(server.base + "/")
        paste(browser, "".join(f"1 Lightnig Bolt{'x' * (i % 3)} {i:02d}\n" for i in range(40)))
        browser.find_element(By.ID, "check").click()
        wait.until(
            lambda d: (
                len(d.find_elements(By.CSS_SELECTOR, "li.problem[data-code=unknown-card]")) == 40
            )
        )
        wait.until(lambda d: d.execute_script(lookups) >= 20)
        time.sleep(1.0)  # any lookup beyond the 20th would have been sent by now
        assert browser.execute_script(lookups) == 20
        browser.save_screenshot(str(tmp_path / "serve-many-unknown.png"))


# A windows-1252 MTGO .dek (its XML declaration says so), written from bytes: "Lim-Dûl's
# Vault" is the byte 0xFB, which read as UTF-8 is no character at all.
CP1252_DEK = (
    '<?xml version="1.0" encoding="windows-1252"?>\r\n'
    '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\r\n'
    "  <NetDeckID>0</NetDeckID>\r\n  <PreconstructedDeckID>0</PreconstructedDeckID>\r\n"
    '  <Cards CatID="1" Quantity="4" Sideboard="false" Name="Lim-Dûl\'s Vault" />\r\n'
    '  <Cards CatID="2" Quantity="56" Sideboard="false" Name="Mountain" />\r\n'
    "</Deck>\r\n"
).encode("cp1252")

# Records what each check sends: "form" (the file itself) or the JSON body's keys.
RECORD_FETCH = """
window.__sent = [];
const realFetch = window.fetch;
window.fetch = (url, init) => {
  if (init && init.body !== undefined) {
    window.__sent.push(init.body instanceof FormData ? {kind: "form"}
                       : {kind: "json", body: JSON.parse(init.body)});
  }
  return realFetch(url, init);
};
"""


def _page(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    browser.get(server.base + "/")
    wait.until(lambda d: len(Select(d.find_element(By.ID, "format")).options) > 10)
    browser.execute_script(RECORD_FETCH)
    return wait, Select(browser.find_element(By.ID, "format"))


def _keep(tmp_path, *names):
    if os.environ.get("DECKCHECK_SCREENSHOTS"):
        keep = Path(os.environ["DECKCHECK_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy(tmp_path / name, keep / name)


def test_page_sends_an_opened_file_itself_so_a_windows_1252_dek_is_read_as_the_cli_reads_it(
    browser, core_db, tmp_path
):
    """The page read the file as UTF-8 text and resent that: "unknown card Lim-D\ufffdl's
    Vault" where the CLI and an upload say legal. Unedited, the file itself is sent."""
    from selenium.webdriver.common.by import By

    dek = tmp_path / "vault.dek"
    dek.write_bytes(CP1252_DEK)
    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        wait, fmt = _page(browser, server)
        fmt.select_by_value("legacy")
        browser.find_element(By.ID, "file").send_keys(str(dek))
        wait.until(lambda d: "<Deck" in d.find_element(By.ID, "decklist").get_attribute("value"))
        # shown as the file says (its declared encoding), not with replacement characters
        assert "Lim-Dûl's Vault" in browser.find_element(By.ID, "decklist").get_attribute("value")
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Legal in Legacy" in d.find_element(By.ID, "verdict").text)
        assert "60 main deck" in browser.find_element(By.ID, "summary").text
        assert "Lim-Dûl's Vault" in browser.find_element(By.ID, "listing").text
        assert browser.execute_script("return window.__sent") == [{"kind": "form"}]
        browser.save_screenshot(str(tmp_path / "serve-cp1252-dek.png"))

        # Edited, the text is sent (as JSON, without the file's name).
        browser.find_element(By.ID, "decklist").send_keys(" ")
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: len(d.execute_script("return window.__sent")) == 2)
        wait.until(
            lambda d: (
                "Legal in Legacy" in d.find_element(By.ID, "verdict").text
                and not d.find_element(By.ID, "stale-note").is_displayed()
            )
        )
        sent = browser.execute_script("return window.__sent")[1]
        assert sent["kind"] == "json" and "filename" not in sent["body"]
        assert "Lim-Dûl's Vault" in sent["body"]["decklist"]
    _keep(tmp_path, "serve-cp1252-dek.png")


def test_page_says_unconfirmed_apart_from_not_legal(browser, core_db, tmp_path):
    """A list whose only error is a name the card data does not know is "Unconfirmed", with a
    note that nothing was found broken; a banned card beside it makes it "Not legal"."""
    from selenium.webdriver.common.by import By

    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        wait, fmt = _page(browser, server)
        fmt.select_by_value("modern")
        verdict = browser.find_element(By.ID, "verdict")
        note = browser.find_element(By.ID, "verdict-note")
        paste(browser, "4 Lightning Bolt\n4 Lightnig Boltt\n52 Mountain\n")
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Unconfirmed in Modern" in verdict.text)
        assert "unconfirmed" in verdict.get_attribute("class").split()
        assert note.is_displayed() and "No rule was found broken" in note.text
        browser.save_screenshot(str(tmp_path / "serve-unconfirmed.png"))
        _keep(tmp_path, "serve-unconfirmed.png")

        paste(
            browser, "4 Lightning Bolt\n4 Lightnig Boltt\n1 Lurrus of the Dream-Den\n51 Mountain\n"
        )
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Not legal in Modern" in verdict.text)
        assert not note.is_displayed()


def test_page_never_shows_a_verdict_of_another_list(browser, core_db, tmp_path):
    """An edit marks the shown verdict out of date; a failed check clears it (the error is not
    shown beside the last list's "Legal"); typing over an opened file's text drops its name
    (a text list sent as "mydeck.json" was a 400 malformed JSON)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    mydeck = tmp_path / "mydeck.json"
    mydeck.write_text('{"main": [{"name": "Lightning Bolt", "quantity": 4}]}')
    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        wait, fmt = _page(browser, server)
        fmt.select_by_value("modern")
        paste(browser, LEGAL_MODERN)
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Legal in Modern" in d.find_element(By.ID, "verdict").text)
        assert not browser.find_element(By.ID, "stale-note").is_displayed()

        # An edit: the verdict is marked out of date at once.
        browser.find_element(By.ID, "decklist").send_keys("1 Black Lotus")
        assert browser.find_element(By.ID, "stale-note").is_displayed()
        assert "stale" in browser.find_element(By.ID, "result").get_attribute("class").split()
        browser.save_screenshot(str(tmp_path / "serve-stale.png"))

        # A failed check: the error, and no verdict beside it.
        paste(browser, "<Deck><Cards Name=")  # malformed XML: a 400 bad-decklist
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: d.find_element(By.ID, "error").is_displayed())
        assert not browser.find_element(By.ID, "result").is_displayed()
        assert not browser.find_element(By.ID, "verdict").is_displayed()
        browser.save_screenshot(str(tmp_path / "serve-error.png"))

        # An opened JSON file replaced by typing a text list: sent as text, no "mydeck.json".
        browser.find_element(By.ID, "file").send_keys(str(mydeck))
        wait.until(
            lambda d: "Lightning Bolt" in d.find_element(By.ID, "decklist").get_attribute("value")
        )
        area = browser.find_element(By.ID, "decklist")
        area.send_keys(Keys.CONTROL, "a")
        area.send_keys(Keys.DELETE)
        area.send_keys("4 Lightning Bolt\n56 Mountain\n")
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Legal in Modern" in d.find_element(By.ID, "verdict").text)
        assert not browser.find_element(By.ID, "error").is_displayed()
        sent = browser.execute_script("return window.__sent")[-1]
        assert sent["kind"] == "json" and "filename" not in sent["body"]
    _keep(tmp_path, "serve-stale.png", "serve-error.png")


def test_page_refuses_a_list_over_the_decklist_limit_in_the_servers_words(
    browser, core_db, tmp_path
):
    from selenium.webdriver.common.by import By

    from validator.decklist import MAX_BYTES

    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        wait, _ = _page(browser, server)
        # Just over the limit, built in the page and in long lines: 4 MB sent through WebDriver
        # as 380,000 short lines took the renderer over 20 s on a loaded machine (timed out).
        browser.execute_script(
            "const t = document.getElementById('decklist');"
            "t.value = ('1 ' + 'x'.repeat(997) + '\\n').repeat(arguments[0]);"
            "t.dispatchEvent(new Event('input', {bubbles: true}));",
            MAX_BYTES // 1000 + 1,
        )
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: d.find_element(By.ID, "error").is_displayed())
        error = browser.find_element(By.ID, "error").text
        assert f"the limit of a decklist is {MAX_BYTES:,} bytes" in error
        assert browser.execute_script("return window.__sent") == []  # refused before sending


# Holds each v1/validate answer until window.__release() (the request itself is sent at once).
HOLD_VALIDATE = """
window.__held = [];
const sendingFetch = window.fetch;
window.fetch = (url, init) => {
  const answer = sendingFetch(url, init);
  if (!String(url).includes("v1/validate")) return answer;
  return new Promise((resolve, reject) => window.__held.push(() => answer.then(resolve, reject)));
};
window.__release = () => { const held = window.__held.splice(0); held.forEach((f) => f()); return held.length; };
"""


def test_page_marks_an_answer_stale_when_the_list_changed_while_it_was_checked(
    browser, core_db, tmp_path
):
    """An edit made while a check was in flight was unmarked when the answer came (render()
    cleared the out-of-date note): the old list's verdict showed as the new one's. And
    Ctrl+Enter during a check started a second request (the button was disabled, the key was
    not), so answers arriving out of order could show an older list's verdict as current."""
    import time

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        wait, fmt = _page(browser, server)
        browser.execute_script(HOLD_VALIDATE)
        fmt.select_by_value("modern")
        area = browser.find_element(By.ID, "decklist")
        stale = lambda d: d.find_element(By.ID, "stale-note").is_displayed()  # noqa: E731

        # 1. Checked, then edited before the answer: the answer is shown marked out of date.
        paste(browser, LEGAL_MODERN)
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: d.execute_script("return window.__held.length") == 1)
        area.send_keys(Keys.CONTROL, Keys.END)
        area.send_keys("\n4 Black Lotus")
        assert browser.execute_script("return window.__release()") == 1
        wait.until(
            lambda d: (
                "Legal in Modern" in d.find_element(By.ID, "verdict").text
                and not d.find_element(By.ID, "check").get_attribute("disabled")
            )
        )
        assert stale(browser), "the verdict of the list before the edit is shown as current"
        assert "stale" in browser.find_element(By.ID, "result").get_attribute("class").split()
        browser.save_screenshot(str(tmp_path / "serve-edited-in-flight.png"))

        # 2. Ctrl+Enter while a check is in flight is ignored: one request, one answer.
        paste(browser, ILLEGAL_MODERN)
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: d.execute_script("return window.__held.length") == 1)
        sent = len(browser.execute_script("return window.__sent"))
        paste(browser, LEGAL_MODERN)
        area.send_keys(Keys.CONTROL, Keys.ENTER)
        time.sleep(0.5)  # a second request would have been sent by now
        assert len(browser.execute_script("return window.__sent")) == sent
        assert browser.execute_script("return window.__held.length") == 1
        browser.execute_script("window.__release()")
        wait.until(
            lambda d: (
                "Not legal in Modern" in d.find_element(By.ID, "verdict").text
                and not d.find_element(By.ID, "check").get_attribute("disabled")
            )
        )
        assert stale(browser)  # the illegal list's verdict, the legal list on screen
        browser.save_screenshot(str(tmp_path / "serve-ctrl-enter-in-flight.png"))

        # 3. A format changed while in flight marks it too; a check of what is shown clears it.
        area.send_keys(Keys.CONTROL, Keys.ENTER)
        wait.until(lambda d: d.execute_script("return window.__held.length") == 1)
        fmt.select_by_value("legacy")
        browser.execute_script("window.__release()")
        wait.until(
            lambda d: (
                "Legal in Modern" in d.find_element(By.ID, "verdict").text
                and not d.find_element(By.ID, "check").get_attribute("disabled")
            )
        )
        assert stale(browser)
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: d.execute_script("return window.__held.length") == 1)
        browser.execute_script("window.__release()")
        wait.until(lambda d: "Legal in Legacy" in d.find_element(By.ID, "verdict").text)
        assert not stale(browser)
        browser.save_screenshot(str(tmp_path / "serve-current.png"))
    _keep(
        tmp_path,
        "serve-edited-in-flight.png",
        "serve-ctrl-enter-in-flight.png",
        "serve-current.png",
    )


# ---------------------------------------------------------------------------- a player's page

#: The widths the page is looked at: a laptop and a phone.
WIDTHS = {"desktop": (1280, 1000), "phone": (390, 844)}

#: Elements that scroll inside the page (their content taller or wider than their box, and
#: their overflow scrolls): a list shown in a box of its own is half hidden on a phone.
INNER_SCROLLERS = """
return [...document.querySelectorAll('body *')].filter((e) => {
  const style = getComputedStyle(e);
  const scrolls = (v) => v === 'auto' || v === 'scroll';
  const tall = e.scrollHeight > e.clientHeight + 1 && (scrolls(style.overflowY) || e.tagName === 'TEXTAREA');
  const wide = e.scrollWidth > e.clientWidth + 1 && scrolls(style.overflowX);
  return e.offsetParent !== null && (tall || wide);
}).map((e) => e.id || e.className || e.tagName);
"""

#: Whether an element is wholly on screen (the viewport, not below the fold).
ON_SCREEN = """
const r = arguments[0].getBoundingClientRect();
return r.top >= -1 && r.bottom <= window.innerHeight + 1 && r.height > 0
  || [r.top, r.bottom, window.innerHeight, window.scrollY];
"""


def _sized(browser, width: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    w, h = WIDTHS[width]
    browser.set_window_size(w, h)
    WebDriverWait(browser, WAIT).until(
        lambda d: abs(d.execute_script("return window.innerWidth") - w) < 40
    )


def _shot(browser, tmp_path, name: str) -> str:
    browser.save_screenshot(str(tmp_path / name))
    return name


def _blue_cards_db(tmp_path) -> str:
    """cards_core.json and 70 blue instants legal in Commander: a list of them under a red
    and green commander has 70 cards outside its colors."""
    import json

    from validator.sync import import_file

    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    cards += [
        {
            "object": "card",
            "oracle_id": f"00000000-0000-4000-a000-{i:012d}",
            "name": f"Blue Study {i}",
            "layout": "normal",
            "mana_cost": "{U}",
            "cmc": 1.0,
            "type_line": "Instant",
            "oracle_text": "Draw a card.",
            "colors": ["U"],
            "color_identity": ["U"],
            "keywords": [],
            "legalities": {"commander": "legal", "vintage": "legal"},
        }
        for i in range(1, 71)
    ]
    path = tmp_path / "cards_blue.json"
    path.write_text(json.dumps(cards), encoding="utf-8")
    db = tmp_path / "blue.sqlite3"
    import_file(path, str(db))
    return str(db)


OFF_COLOR_COMMANDER = (
    "Commander\n1 Minsc & Boo, Timeless Heroes\n\nDeck\n"
    + "".join(f"1 Blue Study {i}\n" for i in range(1, 71))
    + "29 Mountain\n"
)


@pytest.mark.parametrize("width", WIDTHS)
def test_page_says_what_it_judged_by_in_a_players_words(browser, tmp_path, width):
    """At a laptop's and a phone's width: the verdict says the ban lists' date and the card
    data's, and takes an as-of date; the verdict and an error are brought on screen; a problem
    says its line and its suggestion once, and its citation in words; a long card list is
    collapsed; nothing scrolls inside the page."""
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC

    db = _blue_cards_db(tmp_path)
    shots = []
    with Server(db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        _sized(browser, width)
        wait, fmt = _page(browser, server)
        area = browser.find_element(By.ID, "decklist")
        phone = width == "phone"

        # The empty page: an example that reads as one, the picker's file types, the help.
        placeholder = area.get_attribute("placeholder")
        assert placeholder.startswith("Paste your decklist here"), placeholder
        assert (
            browser.execute_script(
                "return getComputedStyle(arguments[0], '::placeholder').fontStyle", area
            )
            == "italic"
        )
        accept = browser.find_element(By.ID, "file").get_attribute("accept").split(",")
        assert {".txt", ".dek", ".cod", ".dck", ".json", ".csv"} <= set(accept)
        help_text = browser.find_element(By.ID, "decklist-help").text
        assert ("Ctrl+Enter" in help_text) is not phone, help_text
        shots.append(_shot(browser, tmp_path, f"page-{width}-empty.png"))

        # The Commander fields: the legend one line, inside the border.
        fmt.select_by_value("commander")
        legend = browser.find_element(By.ID, "commander-legend")
        line_height = browser.execute_script(
            "return parseFloat(getComputedStyle(arguments[0]).lineHeight)", legend
        )
        assert legend.size["height"] <= line_height * 1.2, "the legend wraps across the border"
        # An empty Check, the form long (the Commander fields shown): the error on screen.
        browser.execute_script("window.scrollTo(0, 0)")
        browser.find_element(By.ID, "check").click()
        error = wait.until(EC.visibility_of_element_located((By.ID, "error")))
        assert "Paste a decklist" in error.text
        assert browser.execute_script(ON_SCREEN, error) is True, "the error is off screen"
        shots.append(_shot(browser, tmp_path, f"page-{width}-empty-check.png"))

        # 70 cards outside the commander's colors: the verdict on screen, its dates, the
        # long card list collapsed, the list shown without a box scrolling inside the page.
        paste(browser, OFF_COLOR_COMMANDER)
        browser.execute_script("window.scrollTo(0, 0)")
        browser.find_element(By.ID, "check").click()
        verdict = browser.find_element(By.ID, "verdict")
        wait.until(lambda d: "Not legal in Commander" in verdict.text)
        assert browser.execute_script(ON_SCREEN, verdict) is True, "the verdict is off screen"
        # near the top, the problems under it: focus() alone left it mid-screen on a phone
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", verdict)
        assert top <= browser.execute_script("return window.innerHeight") / 4, top
        provenance = browser.find_element(By.ID, "provenance").text
        assert re.search(r"Current ban lists \(as of \d{1,2} \w{3} \d{4}\)", provenance)
        assert re.search(r"card data: synced \d{1,2} \w{3} \d{4}", provenance), provenance
        identity = browser.find_element(By.CSS_SELECTOR, "li.problem[data-code=color-identity]")
        viewport = browser.execute_script("return window.innerHeight")
        assert identity.size["height"] < viewport / 2, "a 70-card list is a wall"
        assert "70 card(s) outside the color identity" in identity.text
        assert "lines 5, 6, 7, 8, 9, 10 and 64 more" in identity.text
        assert browser.execute_script(INNER_SCROLLERS) == []
        shots.append(_shot(browser, tmp_path, f"page-{width}-long-list.png"))
        more = identity.find_element(By.CSS_SELECTOR, "button.more")
        assert more.text == "Show all 70 cards"
        collapsed = identity.size["height"]
        more.click()
        assert identity.size["height"] > collapsed * 2  # every card shown
        assert "Blue Study 70 (U)" in identity.text
        assert more.get_attribute("aria-expanded") == "true"
        assert browser.execute_script(INNER_SCROLLERS) == []

        # A problem says its line and its suggestion once; a citation in a player's words.
        fmt.select_by_value("modern")
        paste(browser, ILLEGAL_MODERN)
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Not legal in Modern" in verdict.text)
        unknown = browser.find_element(By.CSS_SELECTOR, "li.problem[data-code=unknown-card]")
        wait.until(lambda d: unknown.find_elements(By.CSS_SELECTOR, ".suggest button"))
        text = unknown.text
        assert text.count("line 4") == 1, text
        assert text.lower().count("did you mean") == 1, text
        assert text.count("Lightning Bolt") == 1, text
        cite = unknown.find_element(By.CSS_SELECTOR, ".cite")
        assert cite.text == "your list as written (not a game rule)"
        assert unknown.find_element(By.CSS_SELECTOR, ".cite-code").text == "deckcheck:input"
        banned = browser.find_element(By.CSS_SELECTOR, "li.problem[data-code=banned] .cite")
        assert banned.text == "Modern's own rules and ban list"
        assert browser.execute_script(ON_SCREEN, verdict) is True
        shots.append(_shot(browser, tmp_path, f"page-{width}-illegal.png"))

        # An as-of date: sent as the API takes it, and said with the verdict.
        browser.execute_script(
            "const d = document.getElementById('as-of'); d.value = '2024-01-01';"
            "d.dispatchEvent(new Event('input', {bubbles: true}));"
        )
        browser.find_element(By.ID, "check").click()
        wait.until(
            lambda d: "Ban lists as of 1 Jan 2024" in d.find_element(By.ID, "provenance").text
        )
        assert browser.execute_script("return window.__sent")[-1]["body"]["as_of"] == "2024-01-01"
        shots.append(_shot(browser, tmp_path, f"page-{width}-as-of.png"))
    _keep(tmp_path, *shots)


@pytest.mark.parametrize("width", WIDTHS)
def test_api_docs_work_without_the_internet(browser, core_db, tmp_path, width):
    """/docs was a 404: Swagger UI now, every asset from the service itself (a venue is
    often offline)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with Server(core_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        _sized(browser, width)
        browser.get(server.base + "/docs")
        wait = WebDriverWait(browser, WAIT)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= 5)
        assert "deckcheck" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
        paths = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")]
        assert "/v1/validate" in paths
        loaded = browser.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)"
        )
        assert loaded and all(url.startswith(server.base + "/") for url in loaded), loaded
        name = _shot(browser, tmp_path, f"docs-{width}.png")
    _keep(tmp_path, name)


def test_page_checks_a_japanese_list(browser, localized_db, tmp_path):
    """A list in Japanese (and one bilingual shop line): read, the English card beside each
    line read in Japanese; a German name of two cards refused naming both."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    shots = Path(os.environ.get("DECKCHECK_SHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with Server(localized_db, tmp_path, "--poll", "0") as server:
        server.wait_ready()
        browser.get(server.base + "/")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "format")).options) > 10)
        Select(browser.find_element(By.ID, "format")).select_by_value("vintage")
        paste(
            browser,
            "4 稲妻\n4 《火/Fire // Ice》\n4 秘密を掘り下げる者\n48 山\n\nサイドボード\n2 強迫\n",
        )
        browser.find_element(By.ID, "check").click()
        wait.until(lambda d: "Legal in Vintage" in d.find_element(By.ID, "verdict").text)
        assert (
            "5 names read as their cards' English names"
            in browser.find_element(By.ID, "summary").text
        )
        shown = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#listing .read-as")]
        assert shown[0].strip() == "→ Lightning Bolt (ja)" and len(shown) == 5
        browser.save_screenshot(str(shots / "serve-japanese.png"))
        paste(browser, "4 Zwang\n56 Gebirge\n")
        browser.find_element(By.ID, "check").click()
        # Which card "Zwang" is cannot be told: unconfirmed, not illegal.
        wait.until(lambda d: "Unconfirmed in Vintage" in d.find_element(By.ID, "verdict").text)
        refused = browser.find_element(
            By.CSS_SELECTOR, "li.problem[data-code=ambiguous-printed-name]"
        )
        assert "Coercion; Duress" in refused.text
        browser.save_screenshot(str(shots / "serve-german-ambiguous.png"))
