from pathlib import Path

import pytest

from service.core.domain import StoredMemory
from service.core.errors import UnknownQueryError
from service.store import catalog
from service.store.local_server import render_conf
from service.store.schema import schema_statements


def test_every_cypher_file_loads_without_comments() -> None:
    names = catalog.names()
    assert {"merge_messages", "merge_memories", "search_vector", "schema"} <= set(names)
    for name in names:
        text = catalog.query(name)
        assert text and not any(ln.lstrip().startswith("//") for ln in text.splitlines())


def test_unknown_and_malformed_names_raise() -> None:
    with pytest.raises(UnknownQueryError, match="no query named"):
        catalog.query("no_such_query")
    with pytest.raises(UnknownQueryError, match="invalid query name"):
        catalog.query("../pyproject")


def test_catalogue_reads_any_folder(tmp_path: Path) -> None:
    (tmp_path / "find_thing.cypher").write_text("// why\nMATCH (n) RETURN n\n")
    assert catalog.query("find_thing", tmp_path) == "MATCH (n) RETURN n"


def test_schema_has_constraints_and_every_index_kind() -> None:
    statements = schema_statements(384)
    assert all("IF NOT EXISTS" in s for s in statements)
    assert (
        sum("CONSTRAINT" in s for s in statements) == 6
    )  # ids of memories, messages, entities, events; pending adds and queues
    vector = [s for s in statements if "VECTOR INDEX" in s]
    assert len(vector) == 1 and "`vector.dimensions`: 384" in vector[0]
    assert sum("FULLTEXT INDEX" in s for s in statements) == 2


@pytest.mark.parametrize("bad", [0, -3, "384; DROP", 1.5, True])
def test_schema_refuses_bad_dimensions(bad: object) -> None:
    with pytest.raises(ValueError):
        schema_statements(bad)  # type: ignore[arg-type]


def test_render_conf_replaces_keys_and_keeps_repeated_jvm_flags() -> None:
    template = "a=1\n# a=comment\nserver.jvm.additional=-X1\nserver.jvm.additional=-X2\nb=2\n"
    text = render_conf(template, {"a": "9", "c": "3"})
    lines = text.splitlines()
    assert "a=1" not in lines and "a=9" in lines and "c=3" in lines and "b=2" in lines
    assert "# a=comment" in lines
    assert lines.count("server.jvm.additional=-X1") == 1
    assert lines.count("server.jvm.additional=-X2") == 1


def test_bind_optional_resolves_filters_by_nullness_only() -> None:
    cypher = (
        "MATCH (m) WHERE ($user_id IS NULL OR m.user_id = $user_id)"
        " AND ($run_id IS NULL OR m.run_id = $run_id)"
        " AND ($to IS NULL OR coalesce(m.a, m.b) < $to)"
    )
    bound = catalog.bind_optional(cypher, {"user_id": "u'1 OR true", "run_id": None, "to": None})
    assert bound == (
        "MATCH (m) WHERE (m.user_id = $user_id) AND true"
        " AND ($to IS NULL OR coalesce(m.a, m.b) < $to)"  # parentheses inside: left as it is
    )
    # A parameter that is not passed leaves its filter alone (Neo4j then names it as missing).
    assert catalog.bind_optional(cypher, {"user_id": "u"}).count("$run_id IS NULL") == 1


def test_every_scope_filter_of_the_catalogue_binds() -> None:
    scope = {"user_id": "u", "agent_id": None, "run_id": None}
    for name in catalog.names():
        bound = catalog.bind_optional(catalog.query(name), scope)
        assert "$agent_id IS NULL" not in bound and "$user_id IS NULL" not in bound, name


def test_memory_fields_read_every_stored_memory_field_and_no_embedding() -> None:
    # `m {.id, …, said_at: toString(m.said_at), …}`: each item names its field first.
    items = catalog.fragment("memory_fields").split("{", 1)[1].rsplit("}", 1)[0].split(",")
    projected = [item.strip().lstrip(".").split(":")[0] for item in items]
    assert projected == list(StoredMemory.model_fields) and "embedding" not in projected


def test_the_scope_picker_seeks_a_keys_users_through_the_index() -> None:
    # Bound like this, Neo4j 5.26 plans a NodeIndexSeek on the memory_user index, not a scan.
    allowed = {"user_ids": ["alice"], "agent_ids": None, "run_ids": None, "limit": 50}
    bound = catalog.bind_optional(catalog.query("list_scopes"), allowed)
    assert "(m.user_id IN $user_ids)\n  AND true\n  AND true" in bound
