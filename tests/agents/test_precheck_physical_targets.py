"""A physical tool whose target is not configured (a cluster host, a printer) is refused before
anyone is asked to approve it: the registry runs the tool's precheck ahead of the confirmation,
for the desk's dialogs, the agent's interrupts and MCP alike. Real registry, real HPC and printing
tools; the agent test uses a scripted model (a fake)."""

from __future__ import annotations

from pathlib import Path

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents import HeadlessPolicy
from workbench.agents.events import InterruptRequested, ToolFinished
from workbench.core.context import AppContext

INVENTED = {"script_path": "hpc/scripts/train.sbatch", "host": "gpu-cluster.example.org"}


def configure_host(context: AppContext, tmp_path: Path, name: str = "lab") -> None:
    from workbench_plugins.hpc.config import HostProfile, HpcSettings

    ssh_config = tmp_path / "ssh_config"  # empty: the user's own ~/.ssh/config never leaks in
    ssh_config.write_text("")
    hpc = HpcSettings(
        hosts=[HostProfile(name=name, hostname="127.0.0.1", user="me")],
        ssh_config=str(ssh_config),
    )
    context.settings = context.settings.with_plugin("hpc", hpc)


def test_submit_to_an_invented_host_is_refused_and_nobody_is_asked(context, tmp_path) -> None:
    configure_host(context, tmp_path)
    registry = context.registry
    assert registry.confirmation_needed("submit_slurm_job", INVENTED) is None

    outcome = registry.call("submit_slurm_job", INVENTED, caller="agent:hpc", confirmed=True)

    assert not outcome.ok and outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    assert "gpu-cluster.example.org" in outcome.error.message
    assert "not configured" in outcome.error.message
    [recorded] = context.store.tool_calls("submit_slurm_job")
    assert not recorded["ok"]


def test_submit_to_the_configured_host_is_still_asked_about(context, tmp_path) -> None:
    configure_host(context, tmp_path)
    mine = {**INVENTED, "host": "lab"}
    needed = context.registry.confirmation_needed("submit_slurm_job", mine)
    assert needed is not None and needed.kind == "confirmation_required"
    no_host = {"script_path": INVENTED["script_path"]}  # the first configured host is meant
    assert context.registry.confirmation_needed("submit_slurm_job", no_host) is not None


def test_submit_with_no_host_configured_at_all_is_refused(context, tmp_path) -> None:
    ssh_config = tmp_path / "empty_ssh_config"
    ssh_config.write_text("")
    context.settings = context.settings.with_plugin("hpc", _hpc(ssh_config))
    no_host = {"script_path": INVENTED["script_path"]}
    assert context.registry.confirmation_needed("submit_slurm_job", no_host) is None
    outcome = context.registry.call("submit_slurm_job", no_host, caller="gui")
    assert outcome.error is not None and "No HPC host is configured" in outcome.error.message


def _hpc(ssh_config: Path) -> object:
    from workbench_plugins.hpc.config import HpcSettings

    return HpcSettings(hosts=[], ssh_config=str(ssh_config))


def test_an_invented_printer_is_refused_and_nobody_is_asked(context) -> None:
    registry = context.registry
    for tool in ("pause_print", "cancel_print", "connect_printer"):
        assert registry.confirmation_needed(tool, {"printer": "Prusa MK4 in lab 2"}) is None
        outcome = registry.call(tool, {"printer": "Prusa MK4 in lab 2"}, caller="agent:printer")
        assert outcome.error is not None and outcome.error.kind == "invalid_arguments"
        assert "Prusa MK4 in lab 2" in outcome.error.message
    # an address is the tool's own business (a PrusaLink URL, a port the printer host holds)
    url = {"printer": "http://192.0.2.7"}
    assert registry.confirmation_needed("pause_print", url) is not None


def test_the_agent_never_asks_about_a_call_to_an_invented_host_with_scripted_model(
    app, scripted, tmp_path
) -> None:
    configure_host(app, tmp_path)
    add_specialist(app, "hpc", ("submit_slurm_job",))
    runtime, _ = scripted(
        [
            handoff("hpc", "Submit the training script."),
            calls(call("submit_slurm_job", INVENTED)),
            say("That host is not configured; nothing was submitted."),
            say("Nothing was submitted: the host is not configured."),
        ],
        policy=HeadlessPolicy(approve={"submit_slurm_job"}),  # would say yes: must not be asked
    )
    result = runtime.send_sync("invented-host", "Submit my training job.")

    assert result.status == "done", result.error
    assert not [e for e in result.events if isinstance(e, InterruptRequested)]
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert not finished.ok and finished.error_kind == "invalid_arguments"
    assert "not configured" in finished.error
