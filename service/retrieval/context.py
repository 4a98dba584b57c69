"""A ready-to-paste prompt block: the best hits, dated and attributed, within a token budget."""

from __future__ import annotations

from collections.abc import Callable

from service.core.domain import ContextBlock, SearchHit

HEADER = "Relevant memories (most relevant first; dates are when it was said):"


def memory_line(hit: SearchHit) -> str:
    """One hit as '- [2024-05-02, Alice] text (happened: 2024-04)'."""
    m = hit.memory
    said = m.said_at.date().isoformat() if m.said_at else "undated"
    who = f", {m.speaker}" if m.speaker else ""
    happened = ""
    if m.valid_from and m.time_granularity:
        shape = {"year": "%Y", "month": "%Y-%m", "season": "%Y-%m"}.get(
            m.time_granularity, "%Y-%m-%d"
        )
        happened = f" (happened: {m.valid_from.strftime(shape)})"
    return f"- [{said}{who}] {m.text}{happened}"


def build_context(
    hits: list[SearchHit], token_budget: int, count_tokens: Callable[[str], int]
) -> ContextBlock:
    """Lines in rank order while they fit; a line that does not fit ends the block."""
    lines, used, ids = [HEADER], count_tokens(HEADER), []
    for hit in hits:
        line = memory_line(hit)
        cost = count_tokens(line)
        if used + cost > token_budget:
            break
        lines.append(line)
        used += cost
        ids.append(hit.memory.id)
    if not ids:
        return ContextBlock(text="", tokens=0, memory_ids=[])
    return ContextBlock(text="\n".join(lines), tokens=used, memory_ids=ids)
