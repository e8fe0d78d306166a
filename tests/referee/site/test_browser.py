"""The built site in a real browser, as a person would use it: headless Chromium from Debian's
packages driven by Selenium (nothing downloads a browser or a driver).

Every page is reached by following links from the front page, and every link and anchor
leads somewhere; each page has its title, its versions line and its landmarks, and logs no
console error. A bout page shows a sprung trap's evidence on the call its traps table links
to; the runs page filters; axe-core (shipped inside axe-selenium-python, run offline)
checks the accessibility basics of the main pages. Screenshots of the main pages go to
$ARENA_ARTEFACTS (default: pytest's temporary folder), never into the repository.

Without Chromium, its driver or Selenium these tests skip, saying why; with
ARENA_REQUIRE_BROWSER=1 (CI) they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from catalog import load_catalog
from referee.site.paths import pair_path
from referee.store.results import Store
from tests.referee.site.conftest import DemoSite

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"

_PROBE = """
const q = s => document.querySelector(s);
return {
  title: document.title,
  lang: document.documentElement.lang,
  versions: q('.versions') ? q('.versions').textContent.trim() : '',
  landmarks: ['header', 'main', 'nav', 'footer'].filter(s => q(s) !== null),
  h1: document.querySelectorAll('h1').length,
  links: Array.from(document.querySelectorAll('a[href], link[href], script[src]')).map(a => a.href || a.src),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
};
"""


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    try:
        import axe_selenium_python  # noqa: F401
        import selenium  # noqa: F401
    except ImportError as err:
        return f"{err.name} is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    why = _missing()
    if why is not None:
        if os.environ.get("ARENA_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ARENA_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(300)  # axe-core on a 200 KB bout page takes seconds, more on a busy machine
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("ARENA_ARTEFACTS")
    folder = Path(where) if where else tmp_path_factory.getbasetemp() / "artefacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _file(url: str) -> tuple[Path, str]:
    parts = urlsplit(url)
    return Path(unquote(parts.path)), parts.fragment


def test_every_page_is_reached_by_links_and_has_its_title_versions_and_landmarks(
        driver: Any, demo_site: DemoSite) -> None:
    root = demo_site.root.resolve()
    start = root / "index.html"
    seen: dict[Path, dict[str, Any]] = {}
    queue = deque([start])
    problems: list[str] = []
    while queue:
        page = queue.popleft()
        if page in seen:
            continue
        driver.get(page.as_uri())
        info = driver.execute_script(_PROBE)
        seen[page] = info
        where = page.relative_to(root)
        if not info["title"].endswith("· The Forge Arena") or len(info["title"]) < 20:
            problems.append(f"{where}: title {info['title']!r}")
        if not info["versions"].startswith("Rules "):
            problems.append(f"{where}: versions line {info['versions']!r}")
        if info["landmarks"] != ["header", "main", "nav", "footer"] or info["h1"] != 1 or info["lang"] != "en":
            problems.append(f"{where}: landmarks {info['landmarks']}, {info['h1']} h1, lang {info['lang']!r}")
        problems += [f"{where}: console: {m}" for m in _errors(driver)]
        for link in info["links"]:
            assert link.startswith("file://"), f"{where} links off the site: {link}"
            target, _ = _file(link)
            if target.suffix == ".html" and target.is_file() and target not in seen:
                queue.append(target)
    for page, info in seen.items():
        for link in info["links"]:
            target, anchor = _file(link)
            if not target.is_file():
                problems.append(f"{page.relative_to(root)}: broken link {link}")
            elif anchor and "=" not in anchor and target.suffix == ".html" and anchor not in seen[target]["ids"]:
                problems.append(f"{page.relative_to(root)}: no anchor #{anchor} in {target.relative_to(root)}")
    assert problems == []
    every = set(root.rglob("*.html"))
    assert set(seen) == every, f"pages no link reaches: {sorted(str(p) for p in every - set(seen))[:5]}"


def _sprung_bout(demo_site: DemoSite) -> tuple[str, str]:
    store = Store(demo_site.db)
    try:
        row = next(r for r in store.rows() if r.traps_sprung and r.task_version == "Hard v3.1")
    finally:
        store.close()
    return row.bout_id, row.traps_sprung.split(";")[0]


def test_a_bout_page_shows_a_sprung_traps_evidence_next_to_its_call(
        driver: Any, demo_site: DemoSite, artefacts: Path) -> None:
    from selenium.webdriver.common.by import By

    bout_id, trap = _sprung_bout(demo_site)
    driver.get((demo_site.root / "bouts" / f"{bout_id}.html").resolve().as_uri())
    rules = load_catalog().current_rules.version  # the demo's bouts run under the current rules
    assert driver.find_element(By.CSS_SELECTOR, ".versions").text == f"Rules {rules} · Hard v3.1"
    driver.save_screenshot(str(artefacts / "bout.png"))
    row = driver.find_element(By.XPATH, f"//table//tr[@class='sprung'][td/a[text()='{trap}']]")
    link = row.find_element(By.XPATH, ".//a[starts-with(text(), 'call ')]")
    link.click()
    anchor = urlsplit(driver.current_url).fragment
    call = driver.find_element(By.ID, anchor)
    note = call.find_element(By.CSS_SELECTOR, f".evidence-note[data-trap='{trap}']")
    assert note.is_displayed() and "sprung" in note.text
    top, height = call.location["y"], call.size["height"]
    assert top <= note.location["y"] <= top + height, "the evidence is not inside its call's block"
    assert call.find_element(By.TAG_NAME, "h4").text.startswith("Call ")
    driver.save_screenshot(str(artefacts / "bout-evidence.png"))
    assert _errors(driver) == []


def test_the_runs_page_filters_by_agent_verdict_and_trap(driver: Any, demo_site: DemoSite, artefacts: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    store = Store(demo_site.db)
    try:
        rows = store.rows()
    finally:
        store.close()
    runs = (demo_site.root / "runs" / "index.html").resolve().as_uri()

    def filtered(**wanted: str) -> list[str]:
        driver.get(runs)
        form = driver.find_element(By.ID, "filter")
        for name, value in wanted.items():
            Select(form.find_element(By.NAME, name)).select_by_value(value)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "match" in d.find_element(By.ID, "filter-status").text)
        assert not driver.find_element(By.ID, "runs-filtered").get_attribute("hidden")
        assert not driver.find_element(By.ID, "runs-static").is_displayed()
        return [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#runs-filtered tbody tr td:first-child a")]

    naive_passed = filtered(agent="scripted:naive", verdict="passed")
    assert sorted(naive_passed) == sorted(r.bout_id for r in rows if r.agent == "scripted:naive" and r.passed)
    oracle_failed = filtered(agent="scripted:oracle", verdict="failed", task_version="Hard v3.1")
    assert sorted(oracle_failed) == sorted(r.bout_id for r in rows if r.agent == "scripted:oracle" and not r.passed
                                           and r.task_version == "Hard v3.1")
    trap = next(t for r in rows for t in r.traps_sprung.split(";") if t)
    sprang = filtered(trap=trap, trap_state="sprung", job=next(r.job for r in rows if trap in r.traps_sprung))
    want = [r.bout_id for r in rows if trap in r.traps_sprung.split(";")
            and r.job == next(x.job for x in rows if trap in x.traps_sprung)]
    assert sorted(sprang) == sorted(want) and want
    driver.save_screenshot(str(artefacts / "runs-filtered.png"))
    assert _errors(driver) == []
    # A link with the filter in it (the agent pages give one) opens the runs already filtered.
    driver.get(runs + "#agent=scripted%3Aoracle")
    WebDriverWait(driver, 10).until(lambda d: "match" in d.find_element(By.ID, "filter-status").text)
    shown = driver.find_element(By.ID, "filter-status").text
    assert shown.startswith(f"{sum(r.agent == 'scripted:oracle' for r in rows)} of {len(rows)}")
    # Clearing the filter brings the full list back.
    driver.find_element(By.ID, "f-clear").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "runs-static").is_displayed())


RULES = load_catalog().current_rules.version
"""The demo's bouts run under the current rules, so their boards and rules page are named by it."""
PAIR = pair_path("Normal 1.0", RULES, "scripted:oracle", "scripted:naive")
"""The demo's oracle and naive agents side by side: they differ on every Normal 1.0 variant."""
MAIN_PAGES = {
    "leaderboards": "index.html", "board": f"boards/hard-v3.1--rules-{RULES}.html",
    "normal-board": f"boards/normal-1.0--rules-{RULES}.html",
    "failure-board": f"failure/normal-1.0--rules-{RULES}.html", "runs": "runs/index.html",
    "catalogue": "catalogue/index.html", "trap": "catalogue/FA-PAY-001.html", "rules": f"rules/rules-{RULES}.html",
    "agents": "agents/index.html", "pair": PAIR,
}


def test_main_pages_pass_axe_core_and_are_saved_as_screenshots(
        driver: Any, demo_site: DemoSite, artefacts: Path) -> None:
    from axe_selenium_python import Axe

    agent_page = next(p for p in (demo_site.root / "agents").glob("scripted-naive-*.html") if "-bouts-" not in p.name)
    bout_id, _ = _sprung_bout(demo_site)
    pages = {**MAIN_PAGES, "agent": str(agent_page.relative_to(demo_site.root)), "bout": f"bouts/{bout_id}.html"}
    # Accessibility basics: language, title, headings in order, text alternatives, labelled
    # controls, colour contrast, landmarks; axe's full default rule set, best practices included.
    found = {}
    for name, rel in pages.items():
        assert (demo_site.root / rel).is_file(), rel  # never axe a browser's own "file not found" page
        driver.get((demo_site.root / rel).resolve().as_uri())
        driver.save_screenshot(str(artefacts / f"{name}.png"))
        axe = Axe(driver)
        axe.inject()
        result = axe.run()
        assert {"html-has-lang", "color-contrast", "label", "image-alt", "heading-order"} <= {
            r["id"] for r in result["passes"] + result["inapplicable"] + result["violations"]}
        if result["violations"]:
            found[name] = axe.report(result["violations"])
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
    assert all((artefacts / f"{n}.png").stat().st_size > 5_000 for n in pages)


_SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}
"""The widths the site must read at: a laptop, and a phone (CSS pixels)."""

_OVERFLOW = """
const w = document.documentElement.clientWidth;
const out = [];
for (const t of document.querySelectorAll('table')) {
  const r = (t.closest('.scroll') || t).getBoundingClientRect();
  if (r.right > w + 1 || r.left < -1) out.push(t.caption ? t.caption.textContent.trim() : t.outerHTML.slice(0, 80));
}
for (const c of document.querySelectorAll('svg.chart')) {
  const r = c.getBoundingClientRect();
  if (r.right > w + 1 || r.left < -1) out.push('chart: ' + c.getAttribute('aria-label'));
}
return {tables: out, page: document.documentElement.scrollWidth - w};
"""


@pytest.fixture
def screens(driver: Any) -> Iterator[dict[str, tuple[int, int]]]:
    """Each screen size in turn; the window is put back to the module's size after."""
    yield _SCREENS
    driver.set_window_size(1280, 1000)


def test_a_failing_bout_page_says_why_in_its_first_screen_at_laptop_and_phone_width(
        driver: Any, demo_site: DemoSite, artefacts: Path, screens: dict[str, tuple[int, int]]) -> None:
    from selenium.webdriver.common.by import By

    bout_id, trap = _sprung_bout(demo_site)
    for name, (width, height) in screens.items():
        driver.set_window_size(width, height)
        driver.get((demo_site.root / "bouts" / f"{bout_id}.html").resolve().as_uri())
        inner = driver.execute_script("return window.innerHeight")
        why = driver.find_element(By.CSS_SELECTOR, "section.reasons")
        assert why.find_element(By.TAG_NAME, "h2").text.lower().startswith("failed, score")
        first = why.find_element(By.XPATH, f".//li[a[text()='{trap}']]")
        call = first.find_element(By.XPATH, ".//a[starts-with(text(), 'call ')]")
        bottom = first.location["y"] + first.size["height"]
        assert first.is_displayed() and bottom <= inner, f"{name}: the first trap sprung ends at {bottom} of {inner}px"
        driver.save_screenshot(str(artefacts / f"bout-why-{name}.png"))
        call.click()
        evidence = driver.find_element(By.ID, urlsplit(driver.current_url).fragment)
        assert evidence.find_element(By.CSS_SELECTOR, f".evidence-note[data-trap='{trap}']").is_displayed()
    print(f"screenshots in {artefacts}")


def test_no_table_overflows_the_page_at_laptop_or_phone_width(
        driver: Any, demo_site: DemoSite, artefacts: Path, screens: dict[str, tuple[int, int]]) -> None:
    bout_id, _ = _sprung_bout(demo_site)
    pages = {**MAIN_PAGES, "bout": f"bouts/{bout_id}.html"}
    found = {}
    for screen, (width, height) in screens.items():
        driver.set_window_size(width, height)
        for name, rel in pages.items():
            driver.get((demo_site.root / rel).resolve().as_uri())
            seen = driver.execute_script(_OVERFLOW)
            if seen["tables"] or seen["page"] > 0:
                found[f"{name} at {width}px"] = seen
                driver.save_screenshot(str(artefacts / f"overflow-{name}-{screen}.png"))
    print(f"screenshots in {artefacts}")
    assert found == {}


_CHARTS = """
return Array.from(document.querySelectorAll('svg.chart')).map(c => {
  const r = c.getBoundingClientRect();
  const ws = Array.from(c.querySelectorAll('line.whisker')).map(l => l.getBoundingClientRect().width);
  return {label: c.getAttribute('aria-label'), role: c.getAttribute('role'), width: r.width, height: r.height,
          right: r.right, title: (c.querySelector(':scope > title') || {}).textContent || '',
          desc: (c.querySelector(':scope > desc') || {}).textContent || '',
          described: c.getAttribute('aria-describedby'), whiskers: ws};
});
"""


def test_charts_render_with_text_alternatives_and_whiskers_at_laptop_and_phone_width(
        driver: Any, demo_site: DemoSite, artefacts: Path, screens: dict[str, tuple[int, int]]) -> None:
    from selenium.webdriver.common.by import By

    want = {"normal-board": 1, "failure-board": 2, "pair": 1}
    for screen, (width, height) in screens.items():
        driver.set_window_size(width, height)
        for name, count in want.items():
            driver.get((demo_site.root / MAIN_PAGES[name]).resolve().as_uri())
            charts = driver.execute_script(_CHARTS)
            assert len(charts) == count, f"{name}: {len(charts)} charts"
            inner = driver.execute_script("return document.documentElement.clientWidth")
            for c in charts:
                assert c["role"] == "img" and c["label"] and c["title"] == c["label"], c
                assert c["desc"] and c["described"], c
                assert c["width"] > 200 and c["height"] > 60 and c["right"] <= inner + 1, (screen, c)
            whiskers = [w for c in charts for w in c["whiskers"]]
            assert whiskers and all(w > 0 for w in whiskers), f"{name}: a whisker draws nothing"
            svg = driver.find_element(By.CSS_SELECTOR, "svg.chart")
            assert svg.is_displayed() and svg.accessible_name == charts[0]["label"]
            driver.save_screenshot(str(artefacts / f"chart-{name}-{screen}.png"))
    assert _errors(driver) == []


def test_a_pair_page_lists_a_differing_variant_with_links_to_both_bouts(
        driver: Any, demo_site: DemoSite, artefacts: Path) -> None:
    from selenium.webdriver.common.by import By

    store = Store(demo_site.db)
    try:
        rows = {r.bout_id: r for r in store.rows()}
    finally:
        store.close()
    driver.get((demo_site.root / MAIN_PAGES["normal-board"]).resolve().as_uri())
    driver.find_element(By.LINK_TEXT, "scripted:oracle and scripted:naive").click()
    assert urlsplit(driver.current_url).path.endswith(PAIR)
    driver.save_screenshot(str(artefacts / "pair.png"))
    row = driver.find_element(By.CSS_SELECTOR, "table.compare tbody tr[id]")
    variant = row.find_element(By.TAG_NAME, "th").text  # "job · seed N"
    job, seed = variant.split(" · seed ")
    cells = row.find_elements(By.TAG_NAME, "td")
    for column, agent in ((0, "scripted:oracle"), (1, "scripted:naive")):
        link = cells[column].find_element(By.CSS_SELECTOR, "ul.attempts a")
        bout_id = Path(urlsplit(link.get_attribute("href")).path).stem
        r = rows[bout_id]
        assert (r.agent, r.job, str(r.seed), r.task_version) == (agent, job, seed, "Normal 1.0")
        link.click()
        assert driver.find_element(By.TAG_NAME, "h1").text.endswith(bout_id)
        driver.back()
        row = driver.find_element(By.ID, f"v-{job}-{seed}")
        cells = row.find_elements(By.TAG_NAME, "td")
    assert _errors(driver) == []
    # Chosen in the runs filter: an agent, and another to compare it with, lead to the same page.
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver.get((demo_site.root / "runs" / "index.html").resolve().as_uri())
    form = driver.find_element(By.ID, "filter")
    Select(form.find_element(By.NAME, "agent")).select_by_value("scripted:naive")
    Select(form.find_element(By.NAME, "compare")).select_by_value("scripted:oracle")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "compare-links").is_displayed())
    links = driver.find_element(By.ID, "compare-links").find_elements(By.TAG_NAME, "a")
    assert [a.text for a in links] == [f"Rules {RULES} · Normal 1.0", f"Rules {RULES} · Hard v3.1"]
    links[0].click()
    assert urlsplit(driver.current_url).path.endswith(PAIR)
    assert _errors(driver) == []


def test_a_regraded_bout_page_and_its_diff_page_pass_axe_core_and_fit_a_phone(
        driver: Any, regraded: Path, artefacts: Path, screens: dict[str, tuple[int, int]]) -> None:
    from axe_selenium_python import Axe

    from referee.site.paths import diff_path

    moved = next(p for p in sorted((regraded / "bouts").glob("*.html"))
                 if "Regraded to Rules 0.6" in p.read_text() and "verdict unchanged" not in p.read_text())
    pages = {"regraded-bout": moved, "diff": regraded / diff_path("s1", "0.6")}
    found: dict[str, Any] = {}
    for name, path in pages.items():
        driver.get(path.resolve().as_uri())
        axe = Axe(driver)
        axe.inject()
        result = axe.run()
        if result["violations"]:
            found[name] = axe.report(result["violations"])
        for screen, (width, height) in screens.items():
            driver.set_window_size(width, height)
            driver.get(path.resolve().as_uri())
            seen = driver.execute_script(_OVERFLOW)
            driver.save_screenshot(str(artefacts / f"{name}-{screen}.png"))
            if seen["tables"] or seen["page"] > 0:
                found[f"{name} at {width}px"] = seen
        driver.set_window_size(1280, 1000)
        assert _errors(driver) == []
    assert found == {}, found
