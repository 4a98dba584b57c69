"""Neo4j Browser opens ready: the link, the rendered neo4j.conf, the guide and the style."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from service.core.config import Settings
from service.core.resources import CYPHER_DIR
from service.store.index_shards import LABEL_PREFIX
from service.store.local_server import (
    BROWSER_ASSETS,
    BROWSER_GUIDE,
    BROWSER_STYLE,
    LocalNeo4j,
    browser_link,
)

PARAM = re.compile(r":param (?P<name>\w+) => (?P<value>.+)")


@dataclass(frozen=True)
class GuideBlock:
    slide: int
    text: str

    @property
    def is_cypher(self) -> bool:
        return not self.text.startswith(":")


class _RunnableBlocks(HTMLParser):
    """The text of each `<pre class="runnable">` (what Browser puts in its editor) by slide."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[GuideBlock] = []
        self.slides = 0
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "slide":
            self.slides += 1
        if tag == "pre" and "runnable" in (dict(attrs).get("class") or "").split():
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._text is not None:
            self.blocks.append(GuideBlock(self.slides, "".join(self._text).strip()))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def guide_blocks() -> list[GuideBlock]:
    parser = _RunnableBlocks()
    parser.feed((BROWSER_ASSETS / BROWSER_GUIDE).read_text(encoding="utf-8"))
    parser.close()
    return parser.blocks


def guide_params() -> dict[str, str]:
    """The guide's `:param name => expression` blocks, as name -> Cypher expression."""
    found = (PARAM.fullmatch(block.text) for block in guide_blocks())
    return {m["name"]: m["value"] for m in found if m}


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """GRASS as Browser 5.24 reads it: `selector { key: value; }`, where braces inside single
    quotes are text and the quotes are dropped."""
    rules: dict[str, dict[str, str]] = {}
    quoted = False
    selector, body, current = "", "", None
    for char in text:
        if char == "'":
            quoted = not quoted
        elif char == "{" and not quoted:
            current, body = selector.strip(), ""
        elif char == "}" and not quoted and current is not None:
            props = (prop.split(":", 1) for prop in body.split(";") if ":" in prop)
            rules[current] = {key.strip(): value.strip() for key, value in props}
            selector, current = "", None
        elif current is None:
            selector += char
        else:
            body += char
    return rules


def _settings(**overrides: object) -> Settings:
    values: dict[str, object] = {"neo4j_bolt_port": 7787, "neo4j_http_port": 7574}
    values.update(api_port=8100, data_dir=Path("/tmp/engram-unit"))
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def _conf(settings: Settings) -> dict[str, str]:
    lines = LocalNeo4j(settings).conf_text().splitlines()
    pairs = [ln.split("=", 1) for ln in lines if "=" in ln and not ln.lstrip().startswith("#")]
    keys = [key for key, _ in pairs if key != "server.jvm.additional"]
    assert len(keys) == len(set(keys)), "strict validation refuses a key given twice"
    return {key: value for key, value in pairs}


def test_link_opens_browser_connected_without_a_form() -> None:
    link = browser_link(_settings())
    url = urlsplit(link)
    assert (url.scheme, url.netloc, url.path) == ("http", "localhost:7574", "/browser/")
    query = parse_qs(url.query)
    assert query == {"dbms": ["bolt://localhost:7787"], "preselectAuthMethod": ["NO_AUTH"]}
    # A `cmd` in the URL would turn off browser.post_connect_cmd (the guide and the style).
    assert "cmd" not in query


def test_rendered_conf_applies_the_style_then_opens_the_guide() -> None:
    conf = _conf(_settings())
    assert conf["dbms.security.auth_enabled"] == "false"  # what NO_AUTH in the link relies on
    # Browser splits the value on ';' and runs each part with a leading ':'.
    commands = [part.strip() for part in conf["browser.post_connect_cmd"].split(";")]
    assert commands == [
        "style http://localhost:8100/neo4j-browser/engram.grass",
        "play http://localhost:8100/neo4j-browser/engram-guide.html",
    ]
    # Browser fetches a guide or a style only from a listed host.
    allowed = conf["browser.remote_content_hostname_whitelist"].split(",")
    assert all(urlsplit(cmd.split()[1]).hostname in allowed for cmd in commands)


@pytest.mark.parametrize(
    ("api_host", "browser_host"),
    [("127.0.0.1", "localhost"), ("0.0.0.0", "localhost"), ("10.1.2.3", "10.1.2.3")],
)
def test_guide_url_names_a_host_browser_may_fetch_from(api_host: str, browser_host: str) -> None:
    conf = _conf(_settings(api_host=api_host, auth_mode="api_key"))
    assert f"http://{browser_host}:8100/" in conf["browser.post_connect_cmd"]
    assert browser_host in conf["browser.remote_content_hostname_whitelist"].split(",")


def test_guide_has_slides_and_runnable_blocks() -> None:
    blocks = guide_blocks()
    assert max(block.slide for block in blocks) >= 6
    assert all(block.slide > 0 for block in blocks), "a block outside <slide> is not shown"
    assert {"user", "month", "entity", "from_entity", "to_entity"} <= guide_params().keys()


def _known_labels_and_types() -> tuple[set[str], set[str]]:
    """The labels Engram's schema indexes and the relationship types its Cypher writes."""
    schema = (CYPHER_DIR / "schema.cypher").read_text(encoding="utf-8")
    labels = set(re.findall(r"FOR \(\w+:(\w+)\)", schema))
    cypher = "\n".join(p.read_text(encoding="utf-8") for p in CYPHER_DIR.glob("*.cypher"))
    types = set(re.findall(r"\[\w*:(\w+)", cypher))
    return labels, types


def _relationship_types(query: str) -> set[str]:
    """The types named inside `[...]`: `[r:A|B]`, `[:!A&!B]` ..."""
    inside = (part.split(":", 1)[1] for part in re.findall(r"\[([^\]]*:[^\]]*)\]", query))
    return {name for part in inside for name in re.findall(r"\b[A-Z][A-Z_]+\b", part)}


def test_guide_queries_use_engrams_labels_types_and_params() -> None:
    labels, types = _known_labels_and_types()
    params = guide_params()
    queries = [block.text for block in guide_blocks() if block.is_cypher]
    assert len(queries) >= 8
    for query in queries:
        assert re.match(r"(OPTIONAL )?MATCH\b", query) and "RETURN" in query, query
        for opening, closing in ("()", "[]", "{}"):
            assert query.count(opening) == query.count(closing), query
        assert set(re.findall(r"\(\w*:(\w+)", query)) <= labels, query
        assert _relationship_types(query) <= types, query
        assert set(re.findall(r"\$(\w+)", query)) <= params.keys(), query
    # The queries the guide promises: a user's latest memories, a month, a neighbourhood,
    # a path between two entities, and what was superseded.
    text = "\n".join(queries)
    promised = ["ORDER BY m.said_at DESC", "duration('P1M')", "[:MENTIONS]", "ANY SHORTEST"]
    assert all(needle in text for needle in [*promised, "[:SUPERSEDES]", "invalidated_at"])


def test_style_captions_memories_by_text_entities_by_name_relationships_by_type() -> None:
    text = (BROWSER_ASSETS / BROWSER_STYLE).read_text(encoding="utf-8")
    assert text.count("{") == text.count("}")
    assert '"' not in text, "Browser strips only single quotes around a value"
    rules = parse_grass(text)
    assert rules["node.Memory"]["caption"] == "{text}"
    assert rules["node.Entity"]["caption"] == "{name}"
    assert rules["relationship"]["caption"] == "<type>"
    # `:style` replaces the whole sheet: the defaults for other labels come from here too.
    assert {"diameter", "color"} <= rules["node"].keys()


def test_memories_keep_their_colour_beside_their_partition_label() -> None:
    # Browser colours a label it has no rule for, and that rule comes after (so wins over)
    # node.Memory on a memory that also has MemoryShard_<i>; a rule per partition prevents it.
    rules = parse_grass((BROWSER_ASSETS / BROWSER_STYLE).read_text(encoding="utf-8"))
    shards = Settings(_env_file=None).index_shards  # type: ignore[call-arg]
    for label in (f"node.{LABEL_PREFIX}{i}" for i in range(shards)):
        assert rules[label]["color"] == rules["node.Memory"]["color"], label
        assert "caption" not in rules[label], "the caption stays Memory's {text}"


def test_a_conf_written_for_other_settings_is_reported_as_outdated(tmp_path: Path) -> None:
    # A running server keeps the conf it started with; the CLI then says to restart it.
    server = LocalNeo4j(_settings(data_dir=tmp_path))
    assert not server.conf_is_current()  # nothing written yet
    conf = tmp_path / "neo4j" / "conf" / "neo4j.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(server.conf_text(), encoding="utf-8")
    assert server.conf_is_current()
    assert not LocalNeo4j(_settings(data_dir=tmp_path, api_port=8101)).conf_is_current()
