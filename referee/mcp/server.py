"""`arena serve mcp`: the arena as an MCP server, over stdio or streamable HTTP (ADR 0019).

The official SDK (`mcp`, the ``forge-arena[mcp]`` extra) carries the protocol;
`referee.mcp.bouts` holds the sessions and their bouts. A bout lives as long as a
session, so the server keeps one per client connection: over stdio the process
serves one client; over HTTP each client has a session (``Mcp-Session-Id``, the
2025-11-25 streamable HTTP the 2026-07-28 revision still supports), so ``server/discover``
there names only handshake versions and a client that would go stateless falls back to
the handshake. Over stdio the first request fixes the connection's era for good, so a
``server/discover`` probe is answered as a handshake-era server answers it (method not
found) and the client that probes falls back to the handshake: the handshake carries the
client's name and version, and its ``notifications/tools/list_changed`` reach clients
that never open ``subscriptions/listen`` (FastMCP's, hence pydantic-ai's, which kept the
first tool list and never saw the job's tools). A client that opens in 2026-07-28
without probing is served in that era. When a connection
closes (or an HTTP session idles out) its running bout pauses.

HTTP listens on 127.0.0.1 unless told otherwise, with the SDK's DNS-rebinding guard
for loopback hosts; on any other address it asks every request for a bearer token.

Both transports announce a changed tool list as the capabilities say they will: a
handshake-era client gets ``notifications/tools/list_changed`` on its own session, a
2026-07-28 client on its ``subscriptions/listen`` stream. Every request gets an answer:
a line the SDK cannot parse (a lone surrogate such as ``"\\ud800"``, which Python's own
JSON reader accepts but strict JSON does not) is answered with a JSON-RPC parse error
carrying the request's id where the line still shows it, so no client waits for a reply
that never comes.
"""

from __future__ import annotations

import hmac
import json
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.message import SessionMessage
from mcp.shared.subscriptions import ResourcesListChanged, ToolsListChanged
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from referee.mcp.bouts import Arena, Reply, Session

__all__ = ["LOOPBACK", "ArenaServer", "answering_bad_lines", "parse_error", "serve_http", "serve_stdio", "with_token"]

_SESSION_KEY = "forge-arena.session"
_CHANGES = NotificationOptions(tools_changed=True, resources_changed=True)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Hosts an HTTP server may listen on without a token: only this machine reaches them."""


class _Server(Server[Any]):
    """The SDK's server, announcing list changes whoever builds its initialization options:
    stdio passes ours, but the streamable HTTP manager builds its own with the defaults,
    which said ``listChanged: false`` while the server sent the notification anyway."""

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      experimental_capabilities: dict[str, dict[str, Any]] | None = None,
                                      extensions: dict[str, dict[str, Any]] | None = None) -> Any:
        return super().create_initialization_options(notification_options or _CHANGES, experimental_capabilities,
                                                     extensions)


class ArenaServer:
    """The MCP server of one `Arena`: its handlers, and a session per client connection."""

    def __init__(self, arena: Arena, *, http: bool) -> None:
        self.arena = arena
        self.http = http
        self.only: Session | None = None  # stdio: the one client this process serves
        self.bus = InMemorySubscriptionBus()
        self.server: Server[Any] = _Server(
            "forge-arena", version=_version(), instructions=_INSTRUCTIONS,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool, on_list_resources=self._list_resources,
            on_read_resource=self._read_resource, on_subscriptions_listen=ListenHandler(self.bus),
        )
        if http:
            self.server.add_request_handler("server/discover", types.RequestParams, self._discover)

    def options(self) -> Any:
        return self.server.create_initialization_options(_CHANGES)

    async def _discover(self, ctx: ServerRequestContext[Any], params: types.RequestParams) -> types.DiscoverResult:
        """Over HTTP a bout needs a session, so only the handshake is offered (see the module doc)."""
        return types.DiscoverResult(supported_versions=[LATEST_HANDSHAKE_VERSION],
                                    capabilities=self.server.get_capabilities(), instructions=_INSTRUCTIONS)

    def _session(self, ctx: ServerRequestContext[Any]) -> Session | None:
        """The session of the client making this request; None for a stateless HTTP request."""
        info = ctx.session.client_params.client_info if ctx.session.client_params else None
        name, version = (info.name, info.version) if info is not None else ("client", "")
        if not self.http:
            if self.only is None:
                self.only = Session(self.arena, name, version)
            return self.only
        connection = ctx.session._connection  # the SDK's per-connection state: no public accessor yet
        if connection.session_id is None:
            return None
        found = connection.state.get(_SESSION_KEY)
        if found is None:
            found = connection.state[_SESSION_KEY] = Session(self.arena, name, version)
            connection.exit_stack.push_async_callback(found.close)  # the session ended: pause its bout
        return found

    async def _list_tools(self, ctx: ServerRequestContext[Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        session = self._session(ctx)
        specs = session.tools() if session is not None else Session(self.arena, "", "").tools()
        return types.ListToolsResult(tools=[
            types.Tool(name=t["name"], description=t["description"], input_schema=t["parameters"],
                       output_schema=t.get("output")) for t in specs])

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        session = self._session(ctx)
        if session is None:
            reply = Reply({"error": "a bout needs a session: connect over stdio, or over HTTP with the "
                                    "2025-11-25 handshake (Mcp-Session-Id)"}, error=True)
        else:
            reply = await session.call(params.name, dict(params.arguments or {}) if isinstance(
                params.arguments, dict) else params.arguments)  # type: ignore[arg-type]
        if reply.changed:
            await self._changed(ctx)
        text = json.dumps(reply.payload, ensure_ascii=False, sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=reply.payload, is_error=reply.error)

    async def _changed(self, ctx: ServerRequestContext[Any]) -> None:
        """Tell the client its tools (and the briefs it can read) changed: on the session's own
        channel to a client that made the handshake (either transport; pydantic-ai and others
        cache the first list until told), and to `subscriptions/listen` streams (2026-07-28, stdio)."""
        if ctx.session.client_params is not None:
            await ctx.session.send_tool_list_changed()
            await ctx.session.send_resource_list_changed()
        if not self.http:
            await self.bus.publish(ToolsListChanged())
            await self.bus.publish(ResourcesListChanged())

    async def _list_resources(self, ctx: ServerRequestContext[Any],
                              params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        session = self._session(ctx)
        briefs = session.briefs() if session is not None else {}
        return types.ListResourcesResult(resources=[
            types.Resource(uri=f"arena://bout/{bout_id}/brief", name=f"brief of {bout_id}", mime_type="text/plain")
            for bout_id in briefs])

    async def _read_resource(self, ctx: ServerRequestContext[Any],
                             params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError

        session = self._session(ctx)
        uri = str(params.uri)
        parts = uri.removeprefix("arena://bout/").split("/")
        if session is None or not uri.startswith("arena://bout/") or len(parts) != 2 or parts[1] != "brief" \
                or parts[0] not in session.bouts:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no such resource in this session: {uri[:120]}")
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, text=session.brief(parts[0]), mime_type="text/plain")])


_INSTRUCTIONS = (
    "The Forge Arena: play seeded business jobs with named traps. arena_list_jobs shows the jobs; "
    "arena_start_bout starts a practice bout and returns its brief, and the job's tools become yours. Each tool "
    "call is one turn; submit_report ends the bout, which is judged and signed. arena_verdict gives the result. "
    "Ranked play is a season's: arena_next_season_bout plays the next bout a season planned for you."
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("forge-arena")
    except PackageNotFoundError:
        return "0"


def parse_error(err: Exception) -> types.JSONRPCError:
    """The JSON-RPC answer to a line that is not a message: a parse error for text that is not
    strict JSON, an invalid request for JSON that is no JSON-RPC message; with the request's id
    when Python's lenient reader still finds one in the line (so the client's call ends)."""
    errors = getattr(err, "errors", None)
    found = errors() if callable(errors) else []
    first = found[0] if found else {}
    line = first.get("input", "")
    request_id: int | str | None = None
    try:
        doc = json.loads(line) if isinstance(line, str | bytes) else line
    except ValueError:
        doc = None
    if isinstance(doc, dict) and type(doc.get("id")) in (int, str):
        request_id = doc["id"]
    detail = str(first.get("msg", type(err).__name__))[:200]
    if first.get("type") == "json_invalid":
        code, message = types.PARSE_ERROR, ("not strict JSON text (a lone surrogate escape such as \\ud800 "
                                            f"is not Unicode text): {detail}")
    else:
        code, message = types.INVALID_REQUEST, f"not a JSON-RPC 2.0 request or notification: {detail}"
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _discover_probe(item: SessionMessage) -> types.JSONRPCError | None:
    """The answer a handshake-era server gives ``server/discover`` (see the module doc), or None
    for any other message."""
    message = getattr(item.message, "root", item.message)
    if not isinstance(message, types.JSONRPCRequest) or message.method != "server/discover":
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=message.id, error=types.ErrorData(
        code=types.METHOD_NOT_FOUND, message="server/discover: this server speaks the initialize handshake"))


@asynccontextmanager
async def answering_bad_lines(read: Any, write: Any, *, handshake: bool = False) -> AsyncIterator[Any]:
    """The transport's messages, with each line it could not parse answered at once: the SDK
    hands the server such a line as an exception, which the server only logs. With
    ``handshake``, a ``server/discover`` probe is answered here too (`_discover_probe`)."""
    sender, receiver = anyio.create_memory_object_stream[Any](0)

    async def pump() -> None:
        async with sender:
            async for item in read:
                if isinstance(item, Exception):
                    await write.send(SessionMessage(parse_error(item)))
                elif handshake and (answer := _discover_probe(item)) is not None:
                    await write.send(SessionMessage(answer))
                else:
                    await sender.send(item)

    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield receiver
        finally:
            group.cancel_scope.cancel()


async def serve_stdio(arena: Arena) -> None:
    """Serve one client over this process's stdin and stdout until it closes them."""
    app = ArenaServer(arena, http=False)
    try:
        async with stdio_server() as (read, write), answering_bad_lines(read, write, handshake=True) as messages:
            await app.server.run(messages, write, app.options())
    finally:
        if app.only is not None:
            await app.only.close()
        await arena.close()


def with_token(asgi: Any, token: str) -> Any:
    """The app behind a bearer token: a request without ``Authorization: Bearer <token>`` gets
    401 and reaches nothing (compared in constant time)."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                body = b'{"error": "this arena MCP server needs Authorization: Bearer <token>"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await asgi(scope, receive, send)

    return guarded


async def serve_http(arena: Arena, host: str, port: int, idle: float, token: str | None = None) -> None:
    """Serve any number of clients over streamable HTTP at ``http://host:port/mcp``; the URL
    goes to stderr once the socket listens (port 0 picks a free one). With ``token``, every
    request must carry it as a bearer token; the CLI refuses a non-loopback host without one."""
    import uvicorn

    app = ArenaServer(arena, http=True)
    asgi = app.server.streamable_http_app(host=host, session_idle_timeout=idle)
    if token is not None:
        asgi = with_token(asgi, token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"arena MCP server on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(asgi, log_level="warning", lifespan="on")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()
        await arena.close()
