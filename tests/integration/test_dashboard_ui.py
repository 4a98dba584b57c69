"""The dashboard in headless Chromium against a real Neo4j: a small English conversation (with a
supersession) and a small Chinese one, each user with an API key of their own.

Set ENGRAM_SCREENSHOTS=bench/results/ui to refresh the screenshots in docs/dashboard.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from service.api.app import create_app
from service.core.domain import Scope
from service.memory import MemoryService
from tests.browser import CHROMIUM, BrowserPage, serve
from tests.conftest import Neo4jTarget

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs chromium (apt-get install chromium)"
)

KEY_ALICE = "dashboard-alice-key-0123"
KEY_WANG = "dashboard-wang-key-4567"
NOW = datetime.now(UTC)
THIS_MONTH = NOW.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
LAST_MONTH = (THIS_MONTH - timedelta(days=1)).replace(day=1)
TWO_MONTHS_AGO = (LAST_MONTH - timedelta(days=1)).replace(day=1)
# Minutes ago, yet this month even in a month's first minutes.
RECENT = max(NOW - timedelta(minutes=10), THIS_MONTH + timedelta(seconds=1))


def at(month: datetime, day: int) -> str:
    return month.replace(day=day, hour=9).isoformat()


# One add per line: each message is its own call, as an agent sends them.
ENGLISH = [
    ("Alice", at(TWO_MONTHS_AGO, 10), "I work at Acme Robotics as a firmware engineer."),
    ("Alice", at(TWO_MONTHS_AGO, 11), "Acme Robotics has its headquarters in Toronto."),
    ("Bob", at(TWO_MONTHS_AGO, 12), "I live in Boston."),
    ("Alice", at(LAST_MONTH, 8), "I adopted a puppy named Max."),
    ("Bob", at(LAST_MONTH, 15), "I visited Paris with my sister."),
    ("Bob", RECENT.isoformat(), "I moved to Seattle."),
]
CHINESE = [
    ("王伟", at(LAST_MONTH, 9), "我叫王伟，在阿里巴巴工作。"),
    ("王伟", RECENT.isoformat(), "我今天开始学习Rust语言。"),
]
BEFORE_THE_MOVE = at(LAST_MONTH, 20)[:16]  # what the asOf box takes: no zone, UTC
SHOTS = Path(os.environ.get("ENGRAM_SCREENSHOTS") or "/tmp/engram-dashboard-screenshots")


@dataclass
class Dashboard:
    page: BrowserPage
    url: str

    async def open(self, key: str | None = None) -> None:
        """The page loaded, with the key entered in its box, and the first scope opened."""
        await self.page.goto(self.url)
        await self.page.wait_for("document.body?.dataset.ready === 'true'")
        if key:
            await self.page.eval(
                f"$('#api-key').value = {json.dumps(key)}; $('#key-form').requestSubmit()"
            )
            await self.page.wait_for("document.body.dataset.ready === 'true'")

    async def search(self, query: str, clock: str = "SAID") -> list[str]:
        await self.page.eval(f"""$('#search-query').value = {json.dumps(query)};
            $('input[name=clock][value={clock}]').checked = true;
            $('#search-hits').dataset.state = ''; $('#search-form').requestSubmit()""")
        await self.page.wait_for("$('#search-hits').dataset.state === 'done'")
        return await self.texts("#search-hits li.memory .text")

    async def texts(self, selector: str) -> list[str]:
        found = await self.page.eval(
            f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.textContent)"
        )
        return list(found)

    async def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        await self.page.screenshot(SHOTS / f"dashboard-{name}.png")


@pytest.fixture
async def seeded(mem: MemoryService) -> MemoryService:
    for scope, messages in ((Scope(user_id="alice"), ENGLISH), (Scope(user_id="wang"), CHINESE)):
        for speaker, timestamp, content in messages:
            await mem.add([{"speaker": speaker, "timestamp": timestamp, "content": content}], scope)
    return mem


async def _dashboard(
    mem: MemoryService, target: Neo4jTarget, **settings: object
) -> AsyncIterator[Dashboard]:
    app = create_app(target.settings(**settings), memory=mem)
    async with serve(app) as base, BrowserPage.open() as page:
        # The tests' shorthand in the page, like the browser console's.
        await page.send(
            "Page.addScriptToEvaluateOnNewDocument",
            source="window.$ = s => document.querySelector(s)",
        )
        yield Dashboard(page, f"{base}/dashboard")


@pytest.fixture
async def dashboard(seeded: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[Dashboard]:
    keys = {
        KEY_ALICE: {"principal": "alice-app", "user_ids": ["alice"]},
        KEY_WANG: {"principal": "wang-app", "user_ids": ["wang"]},
    }
    async for d in _dashboard(seeded, neo4j_target, api_keys=keys):
        yield d


@pytest.fixture
async def local_dashboard(
    seeded: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[Dashboard]:
    async for d in _dashboard(seeded, neo4j_target, auth_mode="local"):
        yield d


async def test_last_month_shows_only_that_months_memories(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    assert await dashboard.texts("#stats") != [""]
    found = await dashboard.search("what did we say last month")
    assert sorted(found) == [
        "Alice adopted a puppy named Max.",
        "Bob visited Paris with Bob's sister.",
    ]
    said = await dashboard.texts("#search-hits li.memory > .meta")
    month = LAST_MONTH.strftime("%Y-%m")
    assert all(f"said {month}" in line for line in said if " said " in line), said
    await dashboard.shot("search")


async def test_a_hit_opens_to_its_source_message(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    assert await dashboard.search("Where does Alice work?")
    page = dashboard.page
    assert not await page.eval("$('#search-hits details.sources').open")
    await page.eval("$('#search-hits details.sources summary').click()")
    source = await page.wait_for(
        "$('#search-hits details.sources').open && $('#search-hits .source').innerText"
    )
    assert "I work at Acme Robotics as a firmware engineer." in source
    assert "Alice" in source and TWO_MONTHS_AGO.strftime("%Y-%m") in source
    retrievers = await dashboard.texts("#search-hits li:first-child table.retrievers td")
    assert retrievers, "the retrievers that found the hit, with rank and score"
    await dashboard.shot("search-source")


async def test_the_entity_view_opens_on_the_busiest_entities(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    await page.eval("$('#tabs [data-tab=entities]').click()")
    await page.wait_for("$('#overview-note')")
    await page.wait_for("$('#entity-list button')")
    listed = await dashboard.texts("#entity-list button")
    drawn = await page.eval("window.engramGraph.nodes().map(n => n.id())")
    assert len(listed) < 15 and sorted(drawn) == sorted(listed)  # a small scope: all of them
    edges = await page.eval(
        "window.engramGraph.edges().map(e => [e.source().id(), e.data('label'), e.target().id()])"
    )
    assert ["Alice", "WORKS_AT", "Acme Robotics"] in edges
    assert ["Acme Robotics", "LOCATED_IN", "Toronto"] in edges
    lines = [(a, b) for a, label, b in edges if label.startswith("co-mentioned")]
    arrows = {frozenset((a, b)) for a, label, b in edges if not label.startswith("co-mentioned")}
    assert not [pair for pair in lines if frozenset(pair) in arrows]  # no line under an arrow
    await dashboard.shot("entities-overview")
    # An edge of the opening graph shows its memories too, asked of `path`.
    await page.eval("window.engramGraph.edges('[label = \"WORKS_AT\"]').emit('tap') && true")
    await page.wait_for("$('#edge-memories li')")
    behind = " ".join(await dashboard.texts("#edge-memories li"))
    assert "Alice works at Acme Robotics as a firmware engineer." in behind
    # The icon the page links answers, so the browser does not ask /favicon.ico.
    icon = await page.eval(
        "fetch($('link[rel=icon]').href).then(r => [r.status, r.headers.get('content-type')])"
    )
    assert icon == [200, "image/svg+xml"]


async def test_expanding_an_entity_shows_its_relation_to_another(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    await page.eval("$('#tabs [data-tab=entities]').click()")
    await page.wait_for(
        "[...document.querySelectorAll('#entity-list button')].some(b => b.textContent === 'Alice')"
    )
    await page.eval(
        "[...document.querySelectorAll('#entity-list button')]"
        ".find(b => b.textContent === 'Alice').click()"
    )
    await page.wait_for("$('#entity-detail h3')?.textContent.startsWith('Alice')")
    assert "Alice WORKS_AT Acme Robotics" in await dashboard.texts("#entity-relations li")
    await page.eval("$('#entity-detail button.expand[data-name=\"Acme Robotics\"]').click()")
    await page.wait_for("$('#entity-detail h3')?.textContent.startsWith('Acme Robotics')")
    assert "Acme Robotics LOCATED_IN Toronto" in await dashboard.texts("#entity-relations li")
    edges = await page.eval(
        "window.engramGraph.edges().map(e => [e.source().id(), e.data('label'), e.target().id()])"
    )
    assert ["Alice", "WORKS_AT", "Acme Robotics"] in edges
    assert ["Acme Robotics", "LOCATED_IN", "Toronto"] in edges
    await dashboard.shot("entities")
    # The memories behind an edge, on click.
    await page.eval("window.engramGraph.edges('[label = \"WORKS_AT\"]').emit('tap') && true")
    await page.wait_for("$('#edge-memories li')")
    behind = " ".join(await dashboard.texts("#edge-memories li"))
    assert "Alice works at Acme Robotics as a firmware engineer." in behind


async def test_a_path_between_two_entities(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    await page.eval("""$('#tabs [data-tab=entities]').click();
        $('#path-from').value = 'Alice'; $('#path-to').value = 'Toronto';
        $('#path-form').requestSubmit()""")
    await page.wait_for("$('#path-result .step')")
    steps = await dashboard.texts("#path-result .step strong")
    assert steps == ["1. Alice —WORKS_AT→ Acme Robotics", "2. Acme Robotics —LOCATED_IN→ Toronto"]
    evidence = await dashboard.texts("#path-result .step li")
    assert "Acme Robotics has its headquarters in Toronto." in evidence
    await dashboard.shot("path")


async def test_as_of_before_a_supersession_shows_the_old_fact(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_ALICE)
    now = await dashboard.search("Where does Bob live?")
    assert "Bob moved to Seattle." in now and "Bob lives in Boston." not in now
    page = dashboard.page
    await page.eval(f"$('#as-of').value = '{BEFORE_THE_MOVE}'")
    then = await dashboard.search("Where does Bob live?")
    assert "Bob lives in Boston." in then and "Bob moved to Seattle." not in then
    # It stood then: not struck through, and marked as replaced later.
    assert not await dashboard.texts("#search-hits li.superseded")
    assert "superseded later" in await page.eval("$('#search-hits').innerText")
    await dashboard.shot("as-of")


async def test_the_timeline_marks_a_superseded_fact_and_its_replacement(
    dashboard: Dashboard,
) -> None:
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    await page.eval("$('#tabs [data-tab=timeline]').click()")
    bucket = TWO_MONTHS_AGO.strftime("%Y-%m-%d")
    await page.wait_for(f"$('#timeline-chart rect[data-bucket=\"{bucket}\"]')")
    await page.eval(
        f"$('#timeline-chart rect[data-bucket=\"{bucket}\"]').dispatchEvent(new Event('click'))"
    )
    await page.wait_for(f"$('#timeline-title').textContent.includes('{bucket}')")
    await page.wait_for("$('#timeline-memories li.superseded')")
    replaced = await dashboard.texts("#timeline-memories li.superseded")
    assert len(replaced) == 1 and "Bob lives in Boston." in replaced[0]
    assert "Bob moved to Seattle." in replaced[0]
    assert len(await dashboard.texts("#timeline-memories li.memory")) == 3
    await dashboard.shot("timeline")
    # On the HAPPENED clock a fact with no time of its own counts (and lists) when it was said.
    await page.eval("""$('#timeline-clock').value = 'HAPPENED';
        $('#timeline-clock').dispatchEvent(new Event('change'))""")
    await page.wait_for("$('#timeline-title').textContent.startsWith('All')")
    await page.wait_for(f"$('#timeline-chart rect[data-bucket=\"{bucket}\"]')")
    await page.eval(
        f"$('#timeline-chart rect[data-bucket=\"{bucket}\"]').dispatchEvent(new Event('click'))"
    )
    await page.wait_for(f"$('#timeline-title').textContent.includes('happened {bucket}')")
    await page.wait_for("$('#timeline-memories li.memory')")
    assert len(await dashboard.texts("#timeline-memories li.memory")) == 3


async def test_an_entity_shows_its_profile_and_the_timeline_marks_changes(
    dashboard: Dashboard,
) -> None:
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    open_bob = """$('#tabs [data-tab=entities]').click();
        window.engramGraph && window.engramGraph.elements().remove();
        $('#entity-detail').replaceChildren()"""
    await page.eval(open_bob)
    await page.wait_for(
        "[...document.querySelectorAll('#entity-list button')].some(b => b.textContent === 'Bob')"
    )
    click_bob = (
        "[...document.querySelectorAll('#entity-list button')]"
        ".find(b => b.textContent === 'Bob').click()"
    )
    await page.eval(click_bob)
    await page.wait_for("$('#entity-profile')?.dataset.state === 'done'")
    assert "lives in" in await dashboard.texts("#entity-profile dt")
    lives = await dashboard.texts("#entity-profile dd[data-kind=LIVES_IN]")
    assert len(lives) == 1 and lives[0].startswith(f"Seattle since {RECENT:%Y-%m-%d}")
    await page.eval("$('#entity-profile dd[data-kind=LIVES_IN] details').open = true")
    assert "Bob moved to Seattle." in await page.eval("$('#entity-profile').innerText")
    await dashboard.shot("profile")
    # As of before the move, the same panel shows the old home.
    await page.eval(f"$('#as-of').value = '{BEFORE_THE_MOVE}'")
    await page.eval(click_bob)
    await page.wait_for(
        "$('#entity-profile')?.dataset.state === 'done' && "
        "$('#entity-profile dd[data-kind=LIVES_IN]').textContent.startsWith('Boston')"
    )
    # The timeline marks the month of the move and lists the change, before -> after.
    await page.eval("$('#as-of').value = ''; $('#tabs [data-tab=timeline]').click()")
    await page.wait_for("$('#timeline-changes li')")
    moved = f"Bob: lives in Boston → Seattle, {RECENT:%Y-%m-%d}"
    assert moved in await dashboard.texts("#timeline-changes li.superseded")
    month = RECENT.strftime("%Y-%m-01")
    mark = f"#timeline-chart circle.change-mark.replaced[data-bucket='{month}'] title"
    title = await page.wait_for(f"$({json.dumps(mark)})?.textContent")
    assert moved in title
    await dashboard.shot("timeline-changes")


async def test_chinese_last_month_search_and_forget_with_proof(dashboard: Dashboard) -> None:
    await dashboard.open(KEY_WANG)
    page = dashboard.page
    found = await dashboard.search("上个月我说过什么")
    assert found and all("阿里巴巴" in text for text in found), found
    await dashboard.shot("chinese")
    await page.eval("$('#tabs [data-tab=forget]').click(); $('#forget-dry').click()")
    await page.wait_for("$('#forget-report pre.counts')")
    assert await page.eval("$('#forget-run').disabled"), "no erasure before the dry run is read"
    assert "memories: 2" in await page.eval("$('#forget-report').innerText")
    await page.eval("$('#forget-confirm').click(); $('#forget-run').click()")
    await page.wait_for("$('#forget-report pre.proof')")
    report = await page.eval("$('#forget-report').innerText")
    assert "Verified: nothing is left" in report and "nodesLeft: 0" in report
    await page.wait_for("$('#stats').textContent.startsWith('0 memories')")
    # The picker reloads after the stats: wait for it (wait_for fails when it never does).
    gone = "![...document.querySelectorAll('#scope-picker option')]"
    await page.wait_for(gone + ".some(o => o.textContent.includes('wang'))")
    assert not any("wang" in o for o in await dashboard.texts("#scope-picker option"))
    await dashboard.shot("forget")


async def test_a_key_for_one_user_cannot_see_another_users_scope(dashboard: Dashboard) -> None:
    """Neither in the picker nor typed in; and the Download button saves the key's own scope."""
    await dashboard.open(KEY_ALICE)
    page = dashboard.page
    options = await dashboard.texts("#scope-picker option")
    assert any("user alice" in o for o in options)
    assert not any("wang" in o for o in options), options
    await page.eval("$('#scope-user').value = 'wang'; $('#scope-form').requestSubmit()")
    error = await page.wait_for("!$('#error').hidden && $('#error').textContent")
    assert "may not touch user_id 'wang'" in error
    assert "王伟" not in await page.eval("document.body.innerText")
    assert await page.eval("$('#stats').textContent") == ""
    await dashboard.shot("forbidden")
    # Download saves the open scope's export, fetched with the key: Alice's, nothing of Wang's.
    await page.eval("$('#scope-user').value = 'alice'; $('#scope-form').requestSubmit()")
    await page.wait_for("$('#stats').textContent")
    await page.eval("""window.saved = []; HTMLAnchorElement.prototype.click = function () {
        window.saved.push({name: this.download, href: this.href}) }""")
    await page.eval("$('#download').click()")
    saved = await page.wait_for("window.saved.length && window.saved[0]")
    text = await page.eval(f"fetch({json.dumps(saved['href'])}).then(r => r.text())")
    records = [json.loads(line) for line in text.splitlines()]
    assert saved["name"] == "engram-user-alice.jsonl"
    assert records[0]["scope"] == {"user_id": "alice"} and records[-1]["record"] == "end"
    assert records[-1]["counts"]["memories"] > 0
    assert "王伟" not in text and "wang" not in text
    status = await page.wait_for("$('#download-status').textContent")
    assert status.startswith("engram-user-alice.jsonl:")


async def test_local_mode_needs_no_key_and_lists_every_scope(local_dashboard: Dashboard) -> None:
    await local_dashboard.open()
    options = await local_dashboard.texts("#scope-picker option")
    assert any("user alice" in o for o in options) and any("user wang" in o for o in options)
    viewer = await local_dashboard.texts("#viewer")
    assert viewer == ["key: local (users *)"]
