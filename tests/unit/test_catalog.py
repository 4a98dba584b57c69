from pathlib import Path

import pytest

from service.errors import UnknownQueryError
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
    assert sum("CONSTRAINT" in s for s in statements) == 4
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
