"""`leafwise mcp`: the registry served as MCP tools over stdio (the official SDK's low-level `Server`).

Every tool is generated from a registry `Command` and runs through
`runner.execute`, so an MCP answer is the very envelope `--json` prints: the
structured result of a success, and an `is_error` result carrying the same
envelope for a domain error. Nothing here knows what a command does.

Only `leafwise mcp` imports this module (it pulls in the SDK, too heavy for
`leafwise next`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from contextlib import nullcontext
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import anyio
import anyio.to_thread
from leafwise.commands.core import picker
from leafwise.commands.contract import inert_lines, json_text, untrusted_block
from leafwise.commands.registry import Command, Ctx, Param, agent_surface, load_all
from leafwise.commands.runner import Outcome, execute
from leafwise.commands.surfaces.tool_answers import UNTRUSTED_NOTE, tool_result
from leafwise.commands.text import unicode_text
from leafwise.store import Plan, PlanNotFound, PlanPaths, find_root
from leafwise.store.watch import PlanWatcher
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)

INSTRUCTIONS = """\
Leafwise holds this project's plan (.leafwise/: releases > epics > tasks). Every tool \
answers with one envelope: `result`, `mutation` (what changed) and `_next_action`. \
Follow `_next_action` every time: marker `next` -> run `command`; `wait` -> retry after \
`condition`; `fix` -> the call failed (see `error`, `root_cause`, `remediation`): run \
`command`, then retry; `done` -> the workflow is complete, stop. `or` is a fallback, \
only when the primary step cannot be done.
Commands are CLI lines; each tool's description names its command. `leafwise start \
SHOP-3 --agent <agent>` is start_task(node_id="SHOP-3", agent=...): positional words and \
--flags become arguments by name (dashes -> underscores; ignore --root). Ids are real; \
replace only <placeholders> (<agent>: your name, <summary>, <reason>, <title>).
The loop: get_project_context -> get_next_task -> start_task -> get_doc (read the docs \
before the code) -> work -> complete_task with a summary naming the evidence (tests, \
file and line), or block_task with a reason a person can act on -> repeat until Done. \
Record follow-up work at once with add_node (tech_debt=true, or trigger="when..."); \
strategic questions go to ask_decision. diagnose explains a stuck task.\
"""

JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _param_schema(p: Param) -> dict[str, Any]:
    item: dict[str, Any] = {"type": JSON_TYPES[p.type]}
    if p.choices:
        item["enum"] = list(p.choices)
    if p.multiple:
        return {"type": "array", "items": item, "description": p.help}
    item["description"] = p.help
    if p.default is not None:
        item["default"] = p.default
    return item


def tool_params(spec: Command) -> list[Param]:
    """The arguments a tool takes: CLI-only ones (files, stdin) stay on the command line."""
    return [p for p in spec.params if not p.cli_only]


def input_schema(spec: Command) -> dict[str, Any]:
    params = tool_params(spec)
    schema: dict[str, Any] = {"type": "object", "properties": {p.name: _param_schema(p) for p in params},
                              "additionalProperties": False}
    required = [p.name for p in params if p.required]
    if required:
        schema["required"] = required
    return schema


def tool_annotations(spec: Command) -> ToolAnnotations:
    """Honest hints: discovery is read-only; a mutating tool says if it destroys or repeats safely."""
    if not spec.mutating:
        return ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(read_only_hint=False, destructive_hint=spec.destructive,
                           idempotent_hint=spec.idempotent, open_world_hint=False)


def description(spec: Command) -> str:
    words = [spec.full] + [p.name.upper() for p in spec.params if p.positional and not p.cli_only]
    return f"{spec.summary} [{' '.join(words)}]"


UNNAMED_CLIENT = "mcp"  # the actor of a call naming no agent, from a client that gave no name


def client_actor(request: ServerRequestContext) -> str:
    """Who acts in a call that names no agent: its MCP client, as `mcp:<the name it gave>` (a plain name)."""
    params = request.session.client_params
    name = params.client_info.name if params is not None and params.client_info is not None else ""
    shown = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in name)[:60].strip("-.")
    return f"{UNNAMED_CLIENT}:{shown}" if shown else UNNAMED_CLIENT


class Session:
    """The plan a server answers for, with a warm plan that is never stale.

    Every call gets a fresh `Ctx`. A read-only call may start from the plan
    the previous read-only call loaded, but only when the plan's watcher
    (`store.watch.PlanWatcher`, the same rule for which files matter as the
    canvas's) says no node file nor project.yaml was written since; anything
    else reloads (through the loader's stat-keyed cache). A mutating call
    always drops it: commands patch the plan they hold as they write.
    """

    def __init__(self, root: str | None = None, cwd: Path | None = None, clock=None):
        self.clock = clock  # None: the wall clock (a simulation passes its own)
        self.root = root
        self.cwd = cwd or Path.cwd()
        self._paths: PlanPaths | None = None
        self._watcher: PlanWatcher | None = None
        self._warm: Plan | None = None
        self._picked: tuple[Plan | None, dict[str, Any]] = (None, {})
        self._lock = threading.Lock()

    def _watch(self) -> None:
        """Find the plan (again, if its folder went away) and watch it before anything loads it."""
        if self._watcher is not None and (self._watcher.changes().plan_stale or self._watcher.lost):
            self._warm = None
            if self._watcher.lost:
                self._watcher.close()
                self._watcher = None
        if self._paths is None or not self._paths.dir.is_dir():
            try:
                self._paths = find_root(self.cwd, self.root)
            except PlanNotFound:
                self._paths = None  # the command itself answers with the not-found envelope
            self._warm = None
        if self._watcher is None and self._paths is not None and self._paths.nodes.is_dir():
            try:
                self._watcher = PlanWatcher(self._paths, docs=False)  # the warm plan keeps no doc
            except (OSError, RuntimeError):  # no watch possible (limits, permissions): every call reloads
                self._watcher = None
            self._warm = None

    def ctx(self, spec: Command) -> Ctx:
        ctx = Ctx(root=self.root, cwd=self.cwd)
        if self.clock is not None:
            ctx.clock = self.clock
        with self._lock:
            self._watch()
            ctx.use_paths(self._paths)
            if self._watcher is None or spec.mutating:
                self._warm = None
            ctx.use(self._warm)
        return ctx

    def _keep(self, spec: Command, ctx: Ctx) -> None:
        with self._lock:
            keep = self._watcher is not None and not spec.mutating and ctx.found_paths == self._paths
            self._warm = ctx.loaded_plan if keep else None

    def run(self, spec: Command, arguments: dict[str, Any], client: str = UNNAMED_CLIENT) -> Outcome:
        ctx = self.ctx(spec)
        ctx.client = client
        warm = ctx.loaded_plan
        # the warm plan is unchanged (the watcher said so) and a read-only call does not patch it: its
        # pick order and holders are derived once for every call on it (readiness.unchanged_plan)
        vouched = picker.unchanged_plan(warm, self._picks(warm)) if warm is not None and not spec.mutating \
            else nullcontext()
        with agent_surface(), vouched:  # no call here is a person's: it never approves a command (docs/security.md)
            outcome = execute(spec, ctx, arguments, "mcp")
        self._keep(spec, ctx)
        return outcome

    def _picks(self, plan: Plan) -> dict[str, Any]:
        """The picker's memo for `plan`: a new one with every new warm plan."""
        with self._lock:
            if self._picked[0] is not plan:
                self._picked = (plan, {})
            return self._picked[1]

    def call(self, spec: Command, arguments: dict[str, Any], client: str = UNNAMED_CLIENT) -> CallToolResult:
        outcome = self.run(spec, arguments, client)
        return tool_result(outcome.envelope, outcome.text)


def _read_context(session: Session) -> str:
    outcome = session.run(load_all()["context"], {})
    return json_text(outcome.envelope)  # exact once parsed; no raw hidden character in the text


def _read_docs(session: Session, node_id: str) -> str:
    outcome = session.run(load_all()["doc"], {"node_id": node_id})
    env = outcome.envelope
    if env["status"] == "error":
        raise MCPError(INVALID_PARAMS, f"{env['error']['message']} ({env['_next_action']['command']})")
    docs = env["result"]["docs"]
    if not docs:
        return f"{node_id} has no docs.\n"
    # each doc as the get_doc tool's text shows plan text: lines made inert (none reads as a marker),
    # inside a block that says whose words they are
    return "\n\n".join("\n".join(untrusted_block(inert_lines(d["text"]), f"{node_id} {d['kind']} {d['path']}"
                                                   + (f" ({d['note']})" if d["note"] else "")))
                         for d in docs) + "\n"


def tool_list(specs: dict[str, Command]) -> list[Tool]:
    """The tools, one per registry command that has one (`tool=None`: CLI only), with our own schemas.

    No outputSchema is listed: the envelope's full schema would multiply the tool list's size by
    three (it is the resource leafwise://schema/envelope).
    """
    return [Tool(name=spec.tool, description=description(spec), input_schema=input_schema(spec),
                 annotations=tool_annotations(spec)) for _name, spec in sorted(specs.items()) if spec.tool]


# The resources: (uri, name, mime type, description); a `{node_id}` in the uri makes it a template.
RESOURCES = (
    ("leafwise://context", "context", "application/json",
     "The plan's context envelope: releases, hierarchy, backlog, stats, next task."),
    ("leafwise://nodes/{node_id}/docs", "node-docs", "text/markdown", "A node's linked docs and diagrams, as text."),
    ("leafwise://agent-guide", "agent-guide", "text/markdown", "The loop, the markers and the rules."),
    ("leafwise://schema/envelope", "envelope-schema", "application/schema+json",
     "JSON Schema (2020-12) of every tool's structured result."),
)
NODE_DOCS = re.compile(r"leafwise://nodes/([^/]+)/docs")


def _resource(session: Session, uri: str) -> tuple[str, str]:
    """(text, mime type) of a resource; MCPError for a uri that names none."""
    from leafwise.commands.domain.doctor import envelope_schema_text
    from leafwise.commands.domain.guide import GUIDE

    mime = {u: m for u, _n, m, _d in RESOURCES}
    if uri == "leafwise://context":
        return _read_context(session), mime[uri]
    if uri == "leafwise://agent-guide":
        return GUIDE, mime[uri]
    if uri == "leafwise://schema/envelope":
        return envelope_schema_text(), mime[uri]  # by the one reader
    if match := NODE_DOCS.fullmatch(uri):  # a doc's name or text with a lone surrogate would end the server
        return unicode_text(_read_docs(session, unquote(match.group(1)))), mime["leafwise://nodes/{node_id}/docs"]
    raise MCPError(INVALID_PARAMS, f"no resource {uri!r}", {"uri": uri})


def prompt_list() -> list[Prompt]:
    """The prompts a client offers as slash commands: the verification loop, told to the agent."""
    from leafwise.commands.domain.verify_loop import PROMPT_NAME, PROMPT_SUMMARY

    return [Prompt(name=PROMPT_NAME, title="Verify drafts against the code", description=PROMPT_SUMMARY,
                   arguments=[PromptArgument(name="agent", description="your agent name, for the leases",
                                             required=False)])]


def prompt(name: str, arguments: dict[str, str] | None) -> GetPromptResult:
    """The prompt's messages; MCPError for a name that is not one."""
    from leafwise.commands.domain.verify_loop import PROMPT_NAME, PROMPT_SUMMARY, prompt_text

    if name != PROMPT_NAME:
        raise MCPError(INVALID_PARAMS, f"no prompt {name!r}", {"name": name})
    agent = (arguments or {}).get("agent") or None
    return GetPromptResult(description=PROMPT_SUMMARY, messages=[
        PromptMessage(role="user", content=TextContent(type="text", text=prompt_text(agent)))])


async def _list_prompts(_ctx: ServerRequestContext, _params: Any) -> ListPromptsResult:
    return ListPromptsResult(prompts=prompt_list())


async def _get_prompt(_ctx: ServerRequestContext, params: GetPromptRequestParams) -> GetPromptResult:
    return prompt(params.name, params.arguments)


async def _set_when_cancelled(stop: threading.Event) -> None:
    """Set `stop` when this task is cancelled: the call it stands beside was cancelled or answered."""
    try:
        await anyio.sleep_forever()
    finally:
        stop.set()

def build_server(root: str | None = None, cwd: Path | None = None, clock=None) -> Server:
    """The registry as an MCP server, on the SDK's public low-level `Server`: our tool schemas as
    listed, every call straight to `Session.call` (the SDK validates nothing: `arguments.check`,
    in `execute`, answers a wrong call with the usage envelope, as on the CLI)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("leafwise")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        release = "0"
    session = Session(root, cwd, clock)
    specs = {spec.tool: spec for spec in load_all().values() if spec.tool}
    tools = tool_list(load_all())
    from leafwise.commands.surfaces import mcp_sampling  # verify_leaf sample=true: a verdict by the client's model

    async def list_tools(_ctx: ServerRequestContext, _params: Any) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(_ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        spec = specs.get(params.name)
        if spec is not None and mcp_sampling.wants(spec, params.arguments, _ctx):
            return await mcp_sampling.call(_ctx, session, spec, dict(params.arguments))
        if spec is None:
            return CallToolResult(content=[TextContent(type="text", text=f"Unknown tool: {params.name}")],
                                  is_error=True)
        # Commands block on file locks for up to seconds (and a `wait` for minutes): keep the event loop
        # free, and end a wait when the client cancels the call, so it never claims work for nobody.
        from leafwise.commands.domain import waiting

        stop = threading.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(_set_when_cancelled, stop)
            try:
                with waiting.stopping(stop):
                    return await anyio.to_thread.run_sync(session.call, spec, dict(params.arguments or {}),
                                                          client_actor(_ctx))
            finally:
                group.cancel_scope.cancel()

    async def list_resources(_ctx: ServerRequestContext, _params: Any) -> ListResourcesResult:
        return ListResourcesResult(resources=[Resource(uri=u, name=n, mime_type=m, description=d)
                                              for u, n, m, d in RESOURCES if "{" not in u])

    async def list_templates(_ctx: ServerRequestContext, _params: Any) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[
            ResourceTemplate(uri_template=u, name=n, mime_type=m, description=d)
            for u, n, m, d in RESOURCES if "{" in u])

    async def read_resource(_ctx: ServerRequestContext, params: ReadResourceRequestParams) -> ReadResourceResult:
        uri = str(params.uri)
        text, mime = await anyio.to_thread.run_sync(_resource, session, uri)
        plan_text = uri == "leafwise://context" or NODE_DOCS.fullmatch(uri)
        meta = {"leafwise/untrusted": UNTRUSTED_NOTE} if plan_text else None
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=text, mime_type=mime, meta=meta)])

    return Server("leafwise", title="Leafwise", version=release, instructions=INSTRUCTIONS,
                  get_tool_input_schema=lambda name: input_schema(specs[name]) if name in specs else None,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource,
                  on_list_prompts=_list_prompts, on_get_prompt=_get_prompt)


def serve(root: str | None = None) -> None:
    # watchfiles logs every batch of changes at INFO on stderr, which MCP clients show as server noise
    logging.getLogger("watchfiles").setLevel(logging.WARNING)
    server = build_server(root)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
