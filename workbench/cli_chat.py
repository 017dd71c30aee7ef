"""`workbench --headless chat "MESSAGE"`: one request to the agent the desk runs, its events
printed as JSON lines on stdout as they happen.

    workbench --headless chat "optimise a 2D beam, volume fraction 0.4" [--model M]
              [--yes | --no] [--answer TEXT] [--continue] [--stream] [--max-calls N]
              [--routing auto|prior|model] [--route-only]

Each line is one event: {"event": "routed", "specialist": ..., "how": ...}, "tool_started",
"tool_finished", "interrupt_requested" (a question or a confirmation) and how it was "answered",
"model_called" (tokens per call), "final_answer", "run_finished" (totals), "agent_error"; with
--stream also "token" (streamed text). Confirmations are approved by --yes, declined by --no and
refused when neither is given; questions get --answer, else are told no person can answer.
--continue goes on with the newest conversation (the desk's, in the workspace); without MESSAGE it
only answers what that conversation waits for.

This module stays light (the parser is built for every command); the session is chat_session.py.

Exit codes: 0 the run finished (with --route-only: the request was handed over); 1 it failed
or a guard stopped it (the last line says why); 2 the command could not start (no message,
nothing to continue, a model that cannot be used); 3 it finished, but a confirmation was refused
because neither --yes nor --no was given; 130 interrupted (Ctrl+C).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.core.context import AppContext

UNUSABLE = 2  # the exit codes are chat_session.py's (listed above)


def add_chat_arguments(chat: argparse.ArgumentParser) -> None:
    chat.add_argument("message", nargs="?", default="", help="what to ask the agent")
    chat.add_argument(
        "--model",
        default="",
        metavar="M",
        help="model spec (default: the settings' model, or the embedded one if its server is down)",
    )
    answer = chat.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help="approve every confirmation asked")
    answer.add_argument("--no", action="store_true", help="decline every confirmation asked")
    chat.add_argument(
        "--answer", default="", metavar="TEXT", help="the answer to the agent's questions"
    )
    chat.add_argument(
        "--continue",
        dest="resume",
        action="store_true",
        help="go on with the newest conversation (its pending question or confirmation first)",
    )
    chat.add_argument("--stream", action="store_true", help="print streamed text as 'token'")
    chat.add_argument(
        "--route-only",
        action="store_true",
        help="stop the run once the request is handed over to a specialist: the routing "
        "decision alone (how routing is measured)",
    )
    chat.add_argument(
        "--max-calls",
        type=int,
        default=None,
        metavar="N",
        help="stop the run after N model calls (a budget; the run ends with agent_error)",
    )
    chat.add_argument(
        "--routing",
        choices=("auto", "prior", "model"),
        default="auto",
        help="auto: the MiniLM routing prior with the model (not for scripted models); "
        "prior: always with the prior; model: the model alone",
    )


def run_chat(context: AppContext, args: argparse.Namespace) -> int:
    if not args.message.strip() and not args.resume:
        print('Say what to do: workbench --headless chat "MESSAGE".', file=sys.stderr)
        return UNUSABLE
    from workbench.chat_session import chat

    return chat(context, args)
