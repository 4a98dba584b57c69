"""Engram's use cases as MCP tools: each a thin call into Memory or GraphTraversal, as the GraphQL
resolvers are, with the same scope checks (service/core/auth.authorize) and the same messages.

Every tool takes an optional ``user_id`` / ``agent_id`` / ``run_id``. The caller's principal
narrows them exactly as it narrows GraphQL's ``scope``: a principal limited to one user fills
that user in when the call names none, and refuses another. Over stdio the principal is the
configured scope (``ENGRAM_MCP_USER_ID`` …), so an agent there never needs to name one.
Expected failures (EngramError) come back as tool errors (``isError``) whose text starts with
the GraphQL type of the failure: ``InvalidInput: …``, ``NotFound: …``, ``Forbidden: …``,
``TimedOut: …``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

import pydantic
from mcp.server.extension import Extension
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from service.core import domain
from service.core.auth import Principal, authorize
from service.core.errors import (
    DatabaseUnavailableError,
    EngramError,
    ForbiddenError,
    NotFoundError,
    QueryTimeoutError,
    ValidationError,
)
from service.mcp import results
from service.memory import MemoryService
from service.retrieval.traversal import GraphTraversal

INSTRUCTIONS = """Engram is long-term memory. Store what the user says with add_messages (facts,
entities and dates are extracted) or one fact verbatim with add_memory; before answering, ask
search or context. Dates in results are when it was said; 'happened' is when it took place."""

UserId = Annotated[
    str | None,
    Field(description="Whose memory; optional when the key or the configured scope names one user"),
]
AgentId = Annotated[str | None, Field(description="Which agent's memory (optional)")]
RunId = Annotated[str | None, Field(description="Which run or session's memory (optional)")]
ClockName = Literal["SAID", "HAPPENED"]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False)
REMOVES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
# What a transport may run around the server: stdio starts and closes its own Memory in it.
Lifespan = Callable[[MCPServer[Any]], AbstractAsyncContextManager[Any]]
Tool = Callable[..., Awaitable[Any]]  # a tool function, as MCPServer.tool registers it


@dataclass(frozen=True)
class Binding:
    """How the tools find the Memory service and the caller's principal on one transport."""

    memory: Callable[[Context], MemoryService]
    principal: Callable[[Context], Principal]

    def caller(
        self, ctx: Context, user_id: str | None, agent_id: str | None, run_id: str | None
    ) -> Caller:
        """The caller of this request and the scope its ids name, narrowed by its principal."""
        principal = self.principal(ctx)
        return Caller(scope_for(principal, user_id, agent_id, run_id), principal.name)

    def graph(self, ctx: Context) -> GraphTraversal:
        return self.memory(ctx).graph


class Message(pydantic.BaseModel):
    """One conversation message, as GraphQL's MessageInput."""

    content: str
    role: Literal["user", "assistant", "system", "tool"] = "user"
    speaker: str | None = Field(default=None, description="Who said it (a name), if known")
    timestamp: datetime | None = Field(default=None, description="When it was said (ISO 8601)")
    id: str | None = Field(default=None, description="Your id for it; a repeat writes nothing")
    session_id: str | None = None


@contextmanager
def tool_errors() -> Iterator[None]:
    """Engram's expected errors as tool errors, named as GraphQL names them; nothing else leaks."""
    try:
        yield
    except DatabaseUnavailableError as e:
        raise ToolError("DatabaseUnavailable: the database is unavailable; retry later") from e
    except QueryTimeoutError as e:
        raise ToolError(f"TimedOut: {e}") from e
    except NotFoundError as e:
        raise ToolError(f"NotFound: {e}") from e
    except ForbiddenError as e:
        raise ToolError(f"Forbidden: {e}") from e
    except EngramError as e:
        raise ToolError(f"InvalidInput: {e}") from e


@dataclass(frozen=True)
class Caller:
    """Who calls, and the scope they may touch in this call."""

    scope: domain.Scope
    actor: str


def scope_for(
    principal: Principal, user_id: str | None, agent_id: str | None, run_id: str | None
) -> domain.Scope:
    """The ids a call names, narrowed by the principal (authorize). A call that names none
    gets the principal's own: its one user (and agent, run) id, else a clear refusal."""
    try:
        if user_id is None and agent_id is None and run_id is None:
            return authorize(principal, domain.Scope.model_construct())
        return authorize(principal, domain.Scope(user_id=user_id, agent_id=agent_id, run_id=run_id))
    except pydantic.ValidationError as e:
        raise ValidationError(f"scope: {e.errors()[0]['msg']}") from e


def time_filter(
    phrase: str | None, start: datetime | None, end: datetime | None, clock: ClockName | None
) -> domain.TimeFilter | None:
    """A search's time window from the tool's flat arguments; none when nothing is asked."""
    if phrase is None and start is None and end is None:
        return None
    return domain.TimeFilter(
        phrase=phrase, start=start, end=end, clock=domain.Clock(clock.lower()) if clock else None
    )


def search_options(
    limit: int,
    as_of: datetime | None,
    phrase: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    clock: ClockName | None = None,
) -> domain.SearchOptions:
    """Search options from the search tool's arguments; bad values become ValidationError."""
    try:
        when = time_filter(phrase, start, end, clock)
        return domain.SearchOptions(limit=limit, when=when, as_of=as_of)
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        where = ".".join(map(str, first["loc"])) or "time window"
        raise ValidationError(f"{where}: {first['msg']}") from e


def build_server(
    binding: Binding, lifespan: Lifespan | None = None, extensions: Sequence[Extension] = ()
) -> MCPServer[Any]:
    """An MCP server with Engram's tools; the transport decides how it is reached."""
    # The SDK calls logging.basicConfig with this level: WARNING leaves the root logger as
    # Python sets it (INFO would turn on every library's INFO lines in the API process).
    server: MCPServer[Any] = MCPServer(
        "engram",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
        extensions=extensions,
    )
    # Imported here: profile_tools builds on this module's scope and error helpers.
    from service.mcp.profile_tools import register_profile_tools

    register_memory_tools(server, binding)
    register_graph_tools(server, binding)
    register_profile_tools(server, binding)
    register_lifecycle_tools(server, binding)
    return server


def register_memory_tools(server: MCPServer[Any], binding: Binding) -> None:
    """add_messages, add_memory, search and context: the write and read paths."""
    server.tool(annotations=WRITES)(_add_messages(binding))
    server.tool(annotations=WRITES)(_add_memory(binding))
    server.tool(annotations=READ_ONLY)(_search(binding))
    server.tool(annotations=READ_ONLY)(_context(binding))


def register_graph_tools(server: MCPServer[Any], binding: Binding) -> None:
    """entity and path: the graph reads of service/retrieval/traversal.py."""
    server.tool(annotations=READ_ONLY)(_entity(binding))
    server.tool(annotations=READ_ONLY)(_path(binding))


def register_lifecycle_tools(server: MCPServer[Any], binding: Binding) -> None:
    """list, get, update, delete and forget: Memory's lifecycle use cases."""
    server.tool(annotations=READ_ONLY)(_list_memories(binding))
    server.tool(annotations=READ_ONLY)(_get_memory(binding))
    server.tool(annotations=WRITES)(_update_memory(binding))
    server.tool(annotations=REMOVES)(_delete_memory(binding))
    server.tool(annotations=REMOVES)(_forget(binding))


def _add_messages(binding: Binding) -> Tool:
    async def add_messages(
        ctx: Context,
        messages: list[Message],
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        deferred: Annotated[
            bool,
            Field(
                description="Return as soon as the messages are stored; the memories are "
                "written moments later (pending until then)"
            ),
        ] = False,
    ) -> results.Added:
        """Store conversation messages: facts, entities and dates are extracted from them, with
        provenance. Adding the same messages again writes nothing new."""
        mode = domain.AddMode.DEFERRED if deferred else domain.AddMode.SYNC
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            raw = [m.model_dump() for m in messages]
            done = await binding.memory(ctx).add(raw, who.scope, actor=who.actor, mode=mode)
        return results.Added.of(done)

    return add_messages


def _add_memory(binding: Binding) -> Tool:
    async def add_memory(
        ctx: Context,
        text: str,
        speaker: str | None = None,
        timestamp: datetime | None = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Added:
        """Store one text as one memory, verbatim (no extraction)."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            message = {"content": text, "speaker": speaker, "timestamp": timestamp}
            done = await binding.memory(ctx).add([message], who.scope, infer=False, actor=who.actor)
        return results.Added.of(done)

    return add_memory


def _search(binding: Binding) -> Tool:
    async def search(
        ctx: Context,
        query: str,
        time_phrase: Annotated[
            str | None, Field(description="'last month', '上个月', 'in May' …")
        ] = None,
        time_from: datetime | None = None,
        time_to: datetime | None = None,
        clock: Annotated[
            ClockName | None,
            Field(description="SAID: when it was said; HAPPENED: when it took place or held"),
        ] = None,
        as_of: Annotated[datetime | None, Field(description="Memory as it stood then")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 10,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Hits:
        """Memories closest to the query (meaning, words, entities, time), best first, each
        dated and attributed. A time phrase in the query itself ("what did I say last month?")
        also filters."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            options = search_options(limit, as_of, time_phrase, time_from, time_to, clock)
            hits = await binding.memory(ctx).search(
                query, who.scope, options=options, actor=who.actor
            )
        return results.Hits(hits=[results.Hit.of(h) for h in hits])

    return search


def _context(binding: Binding) -> Tool:
    async def context(
        ctx: Context,
        query: str,
        token_budget: Annotated[int, Field(ge=1, le=32_000)] = 1000,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Context:
        """The best memories for the query as a dated prompt block within token_budget."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            block = await binding.memory(ctx).context(
                query, who.scope, token_budget, actor=who.actor
            )
        return results.Context(text=block.text, tokens=block.tokens, memory_ids=block.memory_ids)

    return context


def _entity(binding: Binding) -> Tool:
    async def entity(
        ctx: Context,
        name: str,
        hops: Annotated[int, Field(ge=1, le=3, description="How far to look for neighbours")] = 1,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Entity:
        """A person, place, organisation … by name or alias: the memories that mention it
        (newest first) and its neighbours (entities named with it, typed relations)."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            walk = binding.graph(ctx)
            node = await walk.entity(name, who.scope)
            memories = await walk.memories(node, who.scope, limit=limit)
            neighbors = await walk.neighbors(node, who.scope, hops=hops, limit=limit)
        return results.Entity.of(node, memories, neighbors)

    return entity


def _path(binding: Binding) -> Tool:
    async def path(
        ctx: Context,
        source: Annotated[str, Field(description="An entity name or alias")],
        target: Annotated[str, Field(description="Another entity name or alias")],
        max_hops: Annotated[int, Field(ge=1, le=4)] = 3,
        as_of: datetime | None = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Path:
        """The shortest chain of entities from source to target, with the memories behind
        each hop."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            found = await binding.graph(ctx).path(
                source, target, who.scope, max_hops=max_hops, as_of=as_of
            )
        return results.Path.of(found)

    return path


def _list_memories(binding: Binding) -> Tool:
    async def list_memories(
        ctx: Context,
        first: Annotated[int, Field(ge=1, le=100)] = 20,
        after: Annotated[str | None, Field(description="end_cursor of the page before")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.MemoryPage:
        """The scope's memories, newest first, one page at a time."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            page = await binding.memory(ctx).get_all(
                who.scope, first=first, after=after, actor=who.actor
            )
        return results.MemoryPage.of(page)

    return list_memories


def _get_memory(binding: Binding) -> Tool:
    async def get_memory(
        ctx: Context,
        memory_id: str,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> domain.StoredMemory:
        """One memory by id, with its dates and source message ids."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            return await binding.memory(ctx).get(memory_id, who.scope, actor=who.actor)

    return get_memory


def _update_memory(binding: Binding) -> Tool:
    async def update_memory(
        ctx: Context,
        memory_id: str,
        text: str,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> domain.StoredMemory:
        """New text for a memory: re-embedded and its entities relinked; history keeps the old."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            return await binding.memory(ctx).update(memory_id, text, who.scope, actor=who.actor)

    return update_memory


def _delete_memory(binding: Binding) -> Tool:
    async def delete_memory(
        ctx: Context,
        memory_id: str,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Deleted:
        """Delete one memory; its history (with its text) stays."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            done = await binding.memory(ctx).delete(memory_id, who.scope, actor=who.actor)
        return results.Deleted(memory_id=memory_id, entity_keys=done.entity_keys)

    return delete_memory


def _forget(binding: Binding) -> Tool:
    async def forget(
        ctx: Context,
        dry_run: Annotated[
            bool,
            Field(
                description="True (the default) only lists what would "
                "go; false erases the scope for good"
            ),
        ] = True,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> results.Forgotten:
        """Erase everything of the scope (messages, memories, entities, texts in the history)
        and prove it; by default a dry run that only lists what would go."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            report = await binding.memory(ctx).forget(who.scope, dry_run, actor=who.actor)
        return results.Forgotten.of(report)

    return forget
