"""The chat controller without Qt, on a plain asyncio loop, over SCRIPTED models: slash commands,
runs and what they show, Stop and Retry, the agent's questions and approvals, the model choice,
conversations opened again and exported. (The same behaviour through the widgets: test_chat*.py.)
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from tests.agents.conftest import add_specialist, call, calls, handoff, say, write_script
from tests.ui.chat.conftest import ChatFactory, RecordedCard, RecordedMessage, play
from tests.ui.slow_model import SlowScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.chat.commands import HELP_TEXT

ADD_TURN = [
    handoff("sample", "Add 2 and 3."),
    calls(call("sample_add", {"a": 2, "b": 3})),
    say("The sum is 5."),
    say("2 + 3 is **5**."),
]


def test_start_shows_the_model_tokens_and_a_welcome(make_chat: ChatFactory) -> None:
    async def scenario() -> None:
        chat = make_chat([])
        await chat.tasks.settle()
        surface = chat.surface
        assert surface.model == ("scripted:test", "")
        assert surface.tokens == (0, 0)
        [welcome] = surface.lines("note")
        assert "tool(s) loaded" in welcome.text and "/help shows all" in welcome.text
        assert surface.listed == [[]] and chat.controller.thread_id is None
        assert chat.tasks.names() == ["chat:conversations"]

    play(scenario)


def test_slash_commands_list_describe_help_and_explain_mistakes(
    app: AppContext, make_chat: ChatFactory
) -> None:
    async def scenario() -> None:
        chat = make_chat([])
        for line in ("/tools", "/describe sample_add", "/describe nope", "/help", "/frobnicate"):
            await chat.send(line)
        await chat.send("/tool sample_add {a: 1}")
        await chat.send("/tool")
        shown = chat.surface.texts()
        assert "You: /tools" in shown and "You: /frobnicate" in shown
        [tools] = [text for text in shown if text.startswith("Tools:\n")]
        assert "sample_add [compute]" in tools
        assert any("  a: number" in text for text in shown)
        assert HELP_TEXT in shown
        errors = [line.text for line in chat.surface.lines("error")]
        assert errors[0].startswith("There is no tool named 'nope'.")
        assert errors[1] == f"Unknown command /frobnicate.\n{HELP_TEXT}"
        assert "not valid JSON" in errors[2]
        assert errors[3] == 'Usage: /tool NAME {"arg": value}'
        assert chat.surface.results == []  # no run was started
        assert app.store.tool_calls() == []  # none of these reached a tool

    play(scenario)


def test_a_tool_command_calls_the_registry_and_shows_the_whole_result(
    app: AppContext, make_chat: ChatFactory
) -> None:
    async def scenario() -> None:
        chat = make_chat([])
        await chat.send('/tool sample_add {"a": 1, "b": 2.5}')
        [card] = chat.surface.of(RecordedCard)
        assert card.tool == "sample_add" and card.agent == "you" and card.status == "ok"
        assert json.loads(card.details) == {"total": 3.5}
        [outcome] = chat.surface.outcomes
        # what a person reads: the result, not the store's "call N" (that is for the record)
        assert outcome.ok and card.summary == "total: 3.5"
        [recorded] = app.store.tool_calls("sample_add")
        assert recorded["caller"] == "gui:chat"

        await chat.send('/tool sample_add {"a": -1, "b": 2}')
        failed = chat.surface.of(RecordedCard)[-1]
        assert failed.status == "error" and "nothing was run" in failed.error + failed.details

    play(scenario)


def test_a_physical_tool_command_waits_for_a_yes(app: AppContext, make_chat: ChatFactory) -> None:
    async def scenario() -> None:
        chat = make_chat([])
        await chat.send("/tool sample_actuate {}")
        [(name, arguments, why)] = chat.surface.confirmations
        assert (name, arguments) == ("sample_actuate", {}) and why
        assert app.store.tool_calls() == []  # nothing moves before the person says yes

        chat.controller.tools.confirmed(name, arguments, approved=False)
        assert chat.surface.texts()[-1] == "sample_actuate was not run: you declined."
        chat.controller.tools.confirmed(name, arguments, approved=True)
        await chat.tasks.settle()
        [outcome] = chat.surface.outcomes
        assert outcome.ok and outcome.result == {"moved": True}
        assert [call["ok"] for call in app.store.tool_calls("sample_actuate")] == [True]

    play(scenario)


def test_a_message_runs_the_agent_and_shows_its_work(
    app: AppContext, make_chat: ChatFactory
) -> None:
    async def scenario() -> None:
        chat = make_chat(ADD_TURN)
        await chat.tasks.settle()
        result = await chat.send("What is 2 + 3?")

        assert result is not None and result.status == "done", result
        surface = chat.surface
        assert surface.busy == [True, False] and not chat.controller.busy
        shown = surface.texts()
        assert "tool(s) loaded" in shown[0]  # the welcome
        assert shown[1:] == [
            "You: What is 2 + 3?",
            "→ sample: Add 2 and 3.",
            "[ok] sample_add",
            "sample: The sum is 5.",
            "Workbench: 2 + 3 is **5**.",
        ]
        specialist, final = surface.of(RecordedMessage)
        assert specialist.role == "specialist" and not specialist.final
        assert final.final and final.agent == "supervisor" and final.shown == "2 + 3 is **5**."
        [card] = surface.of(RecordedCard)
        assert card.summary == "total: 5" and card.agent == "sample"
        assert surface.event_threads == {threading.get_ident()}
        totals = result.totals["input_tokens"], result.totals["output_tokens"]
        assert surface.tokens == totals and sum(totals) > 0
        thread_id = chat.controller.thread_id
        assert thread_id is not None and surface.conversations == [thread_id]
        [recorded] = app.store.tool_calls("sample_add")
        assert recorded["caller"] == "agent:sample"

    play(scenario)


def test_one_run_at_a_time_and_stop_keeps_the_conversation(make_chat: ChatFactory) -> None:
    long_reply = " ".join(f"word{i}" for i in range(200))

    async def scenario() -> None:
        chat = make_chat([say(long_reply), say("Back again.")], SlowScriptedChatModel)
        await chat.tasks.settle()
        controller, surface = chat.controller, chat.surface
        controller.handle("Talk a lot.")
        while not any("word3" in m.text() for m in surface.of(RecordedMessage)):
            await asyncio.sleep(0.02)
        assert controller.busy and surface.busy == [True]

        controller.handle("Are you listening?")
        assert surface.texts()[-1].startswith("The agent is still working on the last message")
        controller.new_conversation()
        assert surface.texts()[-1] == "Stop the agent's run before starting a new conversation."

        controller.stop()
        await chat.tasks.settle()
        assert surface.results == [None] and surface.busy == [True, False]
        assert "Stopped. The conversation is kept; send a message to go on." in surface.texts()
        [partial] = surface.of(RecordedMessage)
        assert partial.discarded == "interrupted, not kept" and "word199" not in partial.text()

        result = await chat.send("Are you there?")
        assert result is not None and result.status == "done" and result.answer == "Back again."
        said = [line.text for line in surface.lines("you")]
        assert said == ["Talk a lot.", "Are you listening?", "Are you there?"]

    play(scenario)


def test_a_failed_model_call_offers_retry_which_goes_on(make_chat: ChatFactory) -> None:
    async def scenario() -> None:
        chat = make_chat([])  # the script is empty: the model call fails
        result = await chat.send("Hello?")
        assert result is not None and result.status == "error"
        [error] = chat.surface.lines("error")
        assert "The scripted model failed" in error.text and error.action == "Retry"

        runtime = chat.controller.runtime
        assert runtime is not None
        runtime.model.replies.append(say("Hello, engineer."))  # type: ignore[attr-defined]
        assert error.on_action is not None
        error.on_action()  # the Retry button
        await chat.tasks.settle()
        assert "Retrying the step that failed…" in chat.surface.texts()
        retried = chat.surface.results[-1]
        assert retried is not None and retried.answer == "Hello, engineer."

    play(scenario)


def test_the_agents_question_is_answered_by_the_next_line(
    app: AppContext, make_chat: ChatFactory
) -> None:
    add_specialist(app, "asker", ("ask_human_for_clarification", "sample_add"))
    replies = [
        handoff("asker", "Add the numbers the engineer means."),
        calls(call("ask_human_for_clarification", {"question": "Which numbers?"})),
        calls(call("sample_add", {"a": 4, "b": 5})),
        say("4 + 5 = 9"),
        say("It is 9."),
    ]

    async def scenario() -> None:
        chat = make_chat(replies)
        first = await chat.send("Add my numbers.")
        assert first is not None and first.status == "interrupted"
        assert chat.surface.questions == [("Which numbers?", "asker")]

        answered = await chat.send("4 and 5")  # goes to the question, not as a new message
        assert answered is not None
        assert answered.status == "done", answered.error
        assert "You: 4 and 5" not in chat.surface.texts()
        [added] = app.store.tool_calls("sample_add")
        assert added["arguments"] == {"a": 4, "b": 5}
        assert chat.surface.texts()[-1] == "Workbench: It is 9."

    play(scenario)


def test_the_agents_tool_call_waits_for_approval(app: AppContext, make_chat: ChatFactory) -> None:
    add_specialist(app, "mover", ("sample_actuate",))
    replies = [
        handoff("mover", "Move the motor."),
        calls(call("sample_actuate", {})),
        say("I did not move it."),
        say("The motor was not moved: you declined."),
    ]

    async def scenario() -> None:
        chat = make_chat(replies)
        first = await chat.send("Move the motor.")
        assert first is not None and first.status == "interrupted"
        [event] = chat.surface.approvals
        assert event.tool == "sample_actuate" and event.kind == "confirmation"
        assert "mover asks to run sample_actuate: see the dialog." in chat.surface.texts()

        assert await chat.send("Well?") is None  # no run: the dialog is answered first
        assert chat.surface.raised == 1
        assert chat.surface.texts()[-1].startswith("The agent waits for your answer")

        chat.controller.approval_given(event, approved=False)
        await chat.tasks.settle()
        result = chat.surface.results[-1]
        assert result is not None
        assert result.status == "done", result.error
        declined = [line for line in chat.surface.lines("note") if "declined" in line.text]
        assert declined[0].text == "You declined sample_actuate." and declined[0].tone == "declined"
        [card] = chat.surface.of(RecordedCard)
        assert card.status == "declined"
        [recorded] = app.store.tool_calls("sample_actuate")
        error = recorded["error"]
        assert not recorded["ok"] and error is not None
        assert error["kind"] == "confirmation_required"

    play(scenario)


def test_choosing_a_model_is_saved_and_used_from_the_next_run(
    app: AppContext, make_chat: ChatFactory, tmp_path: Path
) -> None:
    spec = write_script(tmp_path, [say("From the new model.")])

    async def scenario() -> None:
        chat = make_chat(None)  # the settings' model
        await chat.tasks.settle()
        assert chat.surface.model == ("ollama:qwen3:4b", "")
        chat.controller.set_model(spec)
        await chat.tasks.settle()
        runtime = chat.controller.runtime
        assert runtime is not None and runtime.model_spec == spec
        assert chat.surface.model == (spec, "")
        assert chat.surface.texts()[-1] == f"Model: {spec}. The conversation continues with it."
        assert f'model = "{spec}"' in app.paths.settings_file.read_text(encoding="utf-8")
        result = await chat.send("Hello")
        assert result is not None and result.answer == "From the new model."

        missing = write_script(tmp_path, [], "gone.json")
        Path(missing.removeprefix("scripted:")).unlink()
        chat.controller.set_model(missing)
        await chat.tasks.settle()  # every runtime is built off the GUI thread
        [problem] = chat.surface.lines("error")
        assert problem.text.startswith(f"The model {missing!r} cannot be used")
        assert chat.surface.model == (missing, problem.text)
        assert chat.controller.runtime is runtime  # the working one stays until one works

    play(scenario)


def test_a_conversation_opens_again_and_can_be_exported(
    make_chat: ChatFactory, tmp_path: Path
) -> None:
    async def scenario() -> None:
        first = make_chat(ADD_TURN)
        await first.send("What is 2 + 3?")
        thread_id = first.controller.thread_id
        assert thread_id is not None

        second = make_chat([say("Twice that is 10.")])  # a new window on the same workspace
        await second.tasks.settle()
        surface = second.surface
        assert second.controller.thread_id == thread_id and surface.loaded == [thread_id]
        assert surface.conversations_enabled == [False, True]
        assert "You: What is 2 + 3?" in surface.texts()
        assert "Workbench: 2 + 3 is **5**." in surface.texts()
        assert [card.tool for card in surface.of(RecordedCard)] == ["sample_add"]
        assert surface.tokens == first.surface.tokens  # the earlier calls' tokens

        await second.controller.export("markdown", tmp_path / "talk.md")
        assert surface.exported == [str(tmp_path / "talk.md")]
        assert (tmp_path / "talk.md").read_text(encoding="utf-8").startswith("# What is 2 + 3?")

        second.controller.handle("/new")
        await second.tasks.settle()
        assert second.controller.thread_id is None and surface.tokens == (0, 0)
        [welcome] = surface.texts()  # the view was emptied, "/new" included
        assert "tool(s) loaded" in welcome
        assert surface.conversations == [thread_id]

    play(scenario)
