"""Tools that read the workspace store: what was called, what was stored."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from workbench.core.tools import SideEffect, Tool, ToolContext


class NoArguments(BaseModel):
    pass


class WorkspaceInfo(BaseModel):
    folder: str
    schema_version: int
    tool_calls: int
    artifacts: int
    runs: int


def workspace_info(_: NoArguments, context: ToolContext) -> WorkspaceInfo:
    store = context.app.store

    def count(table: str) -> int:
        return int(store.query(f"SELECT COUNT(*) FROM {table}")[0][0])

    return WorkspaceInfo(
        folder=str(store.folder),
        schema_version=store.schema_version,
        tool_calls=count("tool_calls"),
        artifacts=count("artifacts"),
        runs=count("runs"),
    )


class ArtifactQuery(BaseModel):
    kind: str | None = Field(None, description="only artifacts of this kind, e.g. 'stl'")
    limit: int = Field(50, ge=1, le=1000, description="newest first, at most this many")


class ArtifactEntry(BaseModel):
    id: int
    name: str
    kind: str
    sha256: str
    size: int
    path: str
    meta: dict[str, Any]


class ArtifactList(BaseModel):
    artifacts: list[ArtifactEntry]


def list_artifacts(query: ArtifactQuery, context: ToolContext) -> ArtifactList:
    found = context.app.store.artifacts(query.kind)[-query.limit :][::-1]
    return ArtifactList(
        artifacts=[
            ArtifactEntry(
                id=a.id,
                name=a.name,
                kind=a.kind,
                sha256=a.sha256,
                size=a.size,
                path=str(a.path),
                meta=a.meta,
            )
            for a in found
        ]
    )


class CallQuery(BaseModel):
    tool: str | None = Field(None, description="only calls of this tool")
    limit: int = Field(20, ge=1, le=500, description="newest first, at most this many")


class CallEntry(BaseModel):
    id: int
    tool: str
    caller: str
    ok: bool | None
    duration_s: float | None
    error: str | None


class CallList(BaseModel):
    calls: list[CallEntry]


def recent_tool_calls(query: CallQuery, context: ToolContext) -> CallList:
    calls = context.app.store.tool_calls(query.tool)[-query.limit :][::-1]
    return CallList(
        calls=[
            CallEntry(
                id=c["id"],
                tool=c["tool"],
                caller=c["caller"],
                ok=c["ok"],
                duration_s=c["duration_s"],
                error=c["error"]["message"] if c["error"] else None,
            )
            for c in calls
        ]
    )


def store_tools() -> list[Tool]:
    return [
        Tool(
            "workspace_info",
            "Where the workspace is and how much it holds.",
            NoArguments,
            WorkspaceInfo,
            workspace_info,
            SideEffect.READ,
        ),
        Tool(
            "list_artifacts",
            "Files stored in the workspace (designs, meshes, reports).",
            ArtifactQuery,
            ArtifactList,
            list_artifacts,
            SideEffect.READ,
        ),
        Tool(
            "recent_tool_calls",
            "The latest tool calls with caller, outcome and duration.",
            CallQuery,
            CallList,
            recent_tool_calls,
            SideEffect.READ,
        ),
    ]
