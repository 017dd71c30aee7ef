"""Issue 17, acceptance 5: a task's contract is never readable from the agent's workspace.

The layout is the worst case: the benchmark (tasks/, contracts/, library/) lies inside the app's
workspace, and the run's workspace is two levels below the benchmark root, so `../../contracts`
names the contract for real. From that run, read_file / check_model / simulate are called with
every path an agent might try (absolute, `..`, `~`, URL-encoded, backslashes, symbolic links the
test plants in the workspace pointing at the contract or its folder), unconfirmed and confirmed
(as headless `--yes` would); no result and no error may carry the contract's text.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.modelica.conftest import MODELS
from workbench.core.context import AppContext
from workbench_plugins.modelica import harness

TASK_ID = "wb_repair_electrical_99"
MODEL = "RCCharge"


class Layout:
    """A benchmark root holding one task, its contract and a library, with a run under it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.secret = f"CONTRACT_SECRET_{uuid.uuid4().hex}"
        self.contract = root / "contracts" / f"{TASK_ID}.json"
        self.contract.parent.mkdir(parents=True)
        known_valid = (MODELS / f"{MODEL}.mo").read_text() + f"// {self.secret}\n"
        self.contract.write_text(
            json.dumps(
                {
                    "task_id": TASK_ID,
                    "domain": "electrical",
                    "known_valid": {"final_model": known_valid},
                    "note": self.secret,
                }
            ),
            encoding="utf-8",
        )
        # a reference answer written as Modelica next to it: a compiler given its folder would
        # load it, and a simulation would give its secret number away (x(1) = secret)
        self.number = f"{7000 + uuid.uuid4().int % 1000}.625"
        (self.contract.parent / f"{TASK_ID}_reference.mo").write_text(
            f"model SecretReference // {self.secret}\n"
            f"  parameter Real secret = {self.number};\n"
            "  Real x(start = 0, fixed = true);\nequation\n  der(x) = secret;\n"
            "end SecretReference;\n"
        )
        (root / "library").mkdir()
        (root / "library" / "Blocks.mo").write_text("package Blocks\nend Blocks;\n")


@pytest.fixture
def layout(tmp_path: Path, workbench_home: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    monkeypatch.setenv("HOME", str(tmp_path / "benchmark"))  # `~/contracts/...` is the contract
    return Layout(tmp_path / "benchmark")


@pytest.fixture
def app(layout: Layout) -> Iterator[AppContext]:
    """The app opened on the folder holding the benchmark (a person's checkout, say)."""
    context = AppContext.open(workspace=layout.root)
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    yield context
    context.close()


@pytest.fixture
def run(app: AppContext, layout: Layout) -> Iterator[harness.Run]:
    faulty = (MODELS / f"{MODEL}.mo").read_text().replace("/ R;", "/ Rr;")
    task = harness.Task(
        task_id=TASK_ID, profile="repair", model_name=MODEL, files={f"{MODEL}.mo": faulty}
    )
    started = harness.start_run(task, layout.root / "run", app.ledger)
    workspace = started.workspace.root
    assert (workspace / "../../contracts" / layout.contract.name).resolve() == layout.contract
    # links planted in the workspace: to the contract file, its folder, and as a model file
    os.symlink(layout.contract, workspace / "contract.json")
    os.symlink(layout.contract, workspace / "Contract.mo")
    os.symlink(layout.contract.parent, workspace / "contracts")
    os.symlink(layout.root, workspace / "root")
    yield started
    harness.forget_run(started.id)


def attempted_paths(layout: Layout) -> list[str]:
    name = layout.contract.name
    absolute = str(layout.contract)
    return [
        absolute,
        f"file://{absolute}",
        f"../../contracts/{name}",
        f"./../../contracts/{name}",
        f"sub/../../../contracts/{name}",
        f"..\\..\\contracts\\{name}",
        f"~/contracts/{name}",
        f"%2e%2e/%2e%2e/contracts/{name}",
        f"..%2f..%2fcontracts%2f{name}",
        f"%252e%252e/%252e%252e/contracts/{name}",
        f"contracts/{name}",  # relative to the app's workspace it would be the contract
        f"contracts/{TASK_ID}_reference.mo",
        "contract.json",
        "Contract.mo",
        f"root/contracts/{name}",
        f"{layout.root}/run/workspace/contract.json",
        f"/proc/self/root{absolute}",
        f"/proc/self/cwd/{os.path.relpath(layout.contract, Path.cwd())}",
    ]


def leaked(outcome: Any, layout: Layout) -> bool:
    shown = json.dumps(outcome.model_dump(mode="json"), default=str)
    return layout.secret in shown or layout.number in shown


@pytest.mark.parametrize("confirmed", [False, True], ids=["unconfirmed", "confirmed"])
def test_no_path_reads_the_contract(
    app: AppContext, layout: Layout, run: harness.Run, confirmed: bool
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    for path in attempted_paths(layout):
        calls += [
            ("read_file", {"path": path}),
            ("check_model", {"model": MODEL, "file": path}),
            ("check_model", {"model": "Contract", "file": path}),
            ("simulate", {"model": MODEL, "file": path, "stop_time": 0.1, "intervals": 5}),
        ]
    refused = 0
    for tool, arguments in calls:
        outcome = app.registry.call(
            tool, {"run": run.id, **arguments}, caller="agent:test", confirmed=confirmed
        )
        assert not leaked(outcome, layout), (tool, arguments, outcome)
        refused += not outcome.ok
    assert refused == len(calls)  # every one of them was refused, not merely answered blandly
    assert run.state == "running"


@pytest.mark.parametrize("confirmed", [False, True], ids=["unconfirmed", "confirmed"])
def test_library_folders_never_load_the_contracts(
    app: AppContext, layout: Layout, run: harness.Run, confirmed: bool
) -> None:
    """`libraries` names folders for the compiler: inside a run only the run's own folders.
    (This was a hole: the folder was confined to the app's workspace, which may hold the
    benchmark, so `SecretReference` simulated and showed its secret.)"""
    folders = [
        str(layout.contract.parent),
        "contracts",  # the planted link to the contracts' folder
        "../../contracts",
        "~/contracts",
        str(layout.root),
        "root",
        str(run.workspace.root / "contracts"),
    ]
    for folder in folders:
        for tool in ("check_model", "simulate"):
            arguments = {"run": run.id, "model": "SecretReference", "libraries": [folder]}
            outcome = app.registry.call(tool, arguments, caller="agent:test", confirmed=confirmed)
            assert not leaked(outcome, layout), (tool, folder, outcome)
            assert not outcome.ok, (tool, folder, outcome.result)
    # a library folder of the run's own workspace still loads
    helper = "package Helpers\n  constant Real k = 2;\nend Helpers;\n"
    assert app.registry.call(
        "write_file", {"run": run.id, "path": "lib/Helpers.mo", "text": helper}, caller="t"
    ).ok
    own = app.registry.call(
        "check_model", {"run": run.id, "model": MODEL, "libraries": ["lib"]}, caller="agent:test"
    )
    assert own.ok, own.error


def test_the_workspace_listing_and_candidate_never_take_in_a_planted_link(
    app: AppContext, layout: Layout, run: harness.Run
) -> None:
    """Without a `file`, check and simulate load the workspace's models: links stay out, and
    so does the candidate (what the model is shown each turn)."""
    read = app.registry.call("read_file", {"run": run.id, "path": f"{MODEL}.mo"}, caller="t")
    assert read.ok and "contract.json" not in read.result["workspace_files"]
    assert read.result["workspace_files"] == [f"{MODEL}.mo"]
    write = app.registry.call(
        "write_file",
        {"run": run.id, "path": f"{MODEL}.mo", "text": (MODELS / f"{MODEL}.mo").read_text()},
        caller="t",
    )
    assert write.ok, write.error
    assert set(run.current().content["files"]) == {f"{MODEL}.mo"}
    for tool in ("check_model", "simulate", "ledger_status"):
        arguments = {"run": run.id} if tool == "ledger_status" else {"run": run.id, "model": MODEL}
        outcome = app.registry.call(tool, arguments, caller="agent:test")
        assert outcome.ok, (tool, outcome.error)
        assert not leaked(outcome, layout), tool
    for link in ("contract.json", "contracts"):  # and the links were left as they were
        assert (run.workspace.root / link).is_symlink()


@pytest.mark.parametrize("mode", ["harness", "plain"])
def test_a_scripted_model_in_a_real_task_run_never_sees_its_contract(
    context: AppContext, tmp_path: Path, mode: str
) -> None:
    """The same attempts by a model, through the driver (`driver.run_task`) on a real task
    package: whatever the model is shown (plain: the whole history; harness: each turn's
    context with its last results) holds nothing of the contract."""
    from workbench.agents import ScriptedChatModel
    from workbench_plugins.modelica.driver.run_task import run_task
    from workbench_plugins.modelica.driver.task_source import task_from_public
    from workbench_plugins.modelica.task_packages.packages import load_packages

    package = next(p for p in load_packages() if p.task.task_type == "model_repair")
    contract_text = package.contract_path.read_text(encoding="utf-8")
    answer = getattr(package.contract.known_valid, "final_model", "")
    assert answer and answer not in (package.task.initial_model or "")
    out = tmp_path / "cell"
    workspace = out / "workspace"
    workspace.mkdir(parents=True)
    os.symlink(package.contract_path, workspace / "contract.json")  # planted before the run
    os.symlink(package.contract_path.parent, workspace / "contracts")
    name = package.contract_path.name
    paths = [
        str(package.contract_path),
        os.path.relpath(package.contract_path, workspace),
        "contract.json",
        f"contracts/{name}",
        f"%2e%2e/%2e%2e/contracts/{name}",
    ]
    model_name = package.task.model_name
    calls = [("read_file", {"path": path}) for path in paths]
    calls += [("check_model", {"model": model_name, "file": path}) for path in paths]
    calls += [
        ("simulate", {"model": model_name, "libraries": [str(package.contract_path.parent)]}),
        ("check_model", {"model": model_name, "libraries": ["contracts"]}),
    ]
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": tool, "args": args}]} for tool, args in calls
    ]
    replies += [{"content": "I cannot read it."}] * 2
    model = ScriptedChatModel(replies=replies)
    task = task_from_public(package.task_path, package.library)
    record = run_task(context, task, model, out, mode=mode)
    harness.forget_run(record.run_id)

    assert [call["name"] for call in record.tool_calls] == [tool for tool, _ in calls]
    assert not any(call["ok"] for call in record.tool_calls)  # every attempt was refused
    shown = "\n".join(str(message.content) for seen in model.seen for message in seen["messages"])
    assert "Refused" in shown  # the refusals did reach the model
    for secret in (answer.strip(), '"known_valid"', '"off_target"', contract_text[:200]):
        assert secret not in shown
    assert record.status != "submitted"  # nothing was written: nothing to submit
