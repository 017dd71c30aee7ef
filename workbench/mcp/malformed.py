"""Answers to lines that are not JSON-RPC messages, on the stdio transport.

The SDK's stdio reader hands the server a validation error for such a line, and the server only
logs it, so a client waits for an answer that never comes. JSON-RPC 2.0 says: a line that is not
JSON gets -32700 (parse error), JSON that is not a request gets -32600 (invalid request), with
the request's id when one can be read, else null. `AnswerMalformed` sits between the transport
and the server, answers those itself and hands the server only real messages.
"""

from __future__ import annotations

import contextvars
import logging
from types import TracebackType
from typing import Any

import anyio
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

log = logging.getLogger(__name__)
Item = SessionMessage | Exception


class AnswerMalformed:
    """The server's read stream, with malformed lines answered on `answers` and left out."""

    def __init__(self, lines: ReadStream[Item], answers: WriteStream[SessionMessage]) -> None:
        self._lines = lines
        self._answers = answers

    @property
    def last_context(self) -> contextvars.Context | None:  # the SDK restores sender contexts
        context: contextvars.Context | None = getattr(self._lines, "last_context", None)
        return context

    async def receive(self) -> Item:
        while True:
            item = await self._lines.receive()
            if not isinstance(item, ValidationError):
                return item
            answer = error_answer(item)
            log.warning("answered a malformed line: %s", answer.error.message)
            await self._answers.send(SessionMessage(answer))

    def __aiter__(self) -> AnswerMalformed:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._lines.aclose()

    async def __aenter__(self) -> AnswerMalformed:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


def error_answer(invalid: ValidationError) -> JSONRPCError:
    """The JSON-RPC error for a line the SDK could not read as a message."""
    errors = invalid.errors()
    if any(error["type"] == "json_invalid" for error in errors):
        return _error(None, PARSE_ERROR, "Parse error: the line is not valid JSON.")
    return _error(
        _request_id(errors),
        INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 request, notification or response object "
        '(e.g. {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).',
    )


def _request_id(errors: list[Any]) -> str | int | None:
    """The id of the refused object, where the validation errors show the whole object."""
    for error in errors:
        whole = error.get("input")
        if isinstance(whole, dict) and "id" in whole:
            found = whole["id"]
            if isinstance(found, str | int) and not isinstance(found, bool):
                return found
    return None


def _error(request_id: str | int | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))
