"""`arena serve mcp`: the arena as an MCP server, over stdio or streamable HTTP (ADR 0019).

The official SDK (`mcp`, the ``forge-arena[mcp]`` extra) carries the protocol;
`referee.mcp.bouts` holds the sessions and their bouts. A bout lives as long as a
session, so the server keeps one per client connection: over stdio the process
serves one client, whatever protocol era it speaks; over HTTP each client has a
session (``Mcp-Session-Id``, the 2025-11-25 streamable HTTP the 2026-07-28 revision
still supports), so ``server/discover`` there names only handshake versions and a
client that would go stateless falls back to the handshake. When a connection
closes (or an HTTP session idles out) its running bout pauses.

HTTP listens on 127.0.0.1 unless told otherwise, with the SDK's DNS-rebinding guard
for loopback hosts.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.subscriptions import ResourcesListChanged, ToolsListChanged
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from referee.mcp.bouts import Arena, Reply, Session

__all__ = ["ArenaServer", "serve_http", "serve_stdio"]

_SESSION_KEY = "forge-arena.session"


class ArenaServer:
    """The MCP server of one `Arena`: its handlers, and a session per client connection."""

    def __init__(self, arena: Arena, *, http: bool) -> None:
        self.arena = arena
        self.http = http
        self.only: Session | None = None  # stdio: the one client this process serves
        self.bus = InMemorySubscriptionBus()
        self.server: Server[Any] = Server(
            "forge-arena", version=_version(), instructions=_INSTRUCTIONS,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool, on_list_resources=self._list_resources,
            on_read_resource=self._read_resource, on_subscriptions_listen=ListenHandler(self.bus),
        )
        if http:
            self.server.add_request_handler("server/discover", types.RequestParams, self._discover)

    def options(self) -> Any:
        return self.server.create_initialization_options(
            NotificationOptions(tools_changed=True, resources_changed=True))

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
            types.Tool(name=t["name"], description=t["description"], input_schema=t["parameters"]) for t in specs])

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
        channel (handshake era), and to `subscriptions/listen` streams (2026-07-28, stdio)."""
        if self.http:
            await ctx.session.send_tool_list_changed()
            await ctx.session.send_resource_list_changed()
        else:
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
    "arena_start_bout starts one and returns its brief, and the job's tools become yours. Each tool call is "
    "one turn; submit_report ends the bout, which is judged and signed. arena_verdict gives the result."
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("forge-arena")
    except PackageNotFoundError:
        return "0"


async def serve_stdio(arena: Arena) -> None:
    """Serve one client over this process's stdin and stdout until it closes them."""
    app = ArenaServer(arena, http=False)
    try:
        async with stdio_server() as (read, write):
            await app.server.run(read, write, app.options())
    finally:
        if app.only is not None:
            await app.only.close()
        await arena.close()


async def serve_http(arena: Arena, host: str, port: int, idle: float) -> None:
    """Serve any number of clients over streamable HTTP at ``http://host:port/mcp``; the URL
    goes to stderr once the socket listens (port 0 picks a free one)."""
    import uvicorn

    app = ArenaServer(arena, http=True)
    asgi = app.server.streamable_http_app(host=host, session_idle_timeout=idle)
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
