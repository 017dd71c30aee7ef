"""`workbench doctor`: one line per check of the environment, with what to do when it fails.

Checks look without importing Qt (find_spec, shared-library lookup), so the headless doctor stays
headless. Optional components report "missing", not "fail": Workbench runs without them. "warn"
is for what could not be checked (never "ok" for something nobody looked at). No usable keyring
is a "fail": API keys and passwords have nowhere else to go (secrets.keyring_status).
Configured hosts and printers are reached by the plugin that drives them (its checks); with no
such plugin loaded the line says they were not checked.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import httpx

from workbench.core import secrets
from workbench.core.plugins import load_reference
from workbench.core.secrets import SERVICE, keyring_advice, keyring_status
from workbench.core.settings import read_settings
from workbench.core.settings_models import ModelProfile

if TYPE_CHECKING:
    from workbench.core.context import AppContext

Level = Literal["ok", "warn", "missing", "fail"]


@dataclass(frozen=True)
class CheckResult:
    name: str
    level: Level
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"[{self.level:>7}] {self.name}: {self.detail}"
        return f"{text} -> {self.fix}" if self.fix and self.level != "ok" else text


Check = Callable[["AppContext"], "CheckResult | list[CheckResult]"]  # a list: one per item


def check_python(_: AppContext) -> CheckResult:
    version = platform.python_version()
    return CheckResult("python", "ok", f"{version} at {sys.executable}")


def check_qt(_: AppContext) -> CheckResult:
    if importlib.util.find_spec("PySide6") is None:
        return CheckResult(
            "qt",
            "missing",
            "PySide6 is not installed (headless use still works)",
            "pip install 'workbench[gui]' for the desktop app.",
        )
    platform_name = os.environ.get("QT_QPA_PLATFORM", "")
    if platform_name:
        return CheckResult("qt", "ok", f"PySide6 installed, QT_QPA_PLATFORM={platform_name}")
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return CheckResult(
            "qt",
            "missing",
            "PySide6 installed but no display (DISPLAY/WAYLAND_DISPLAY unset)",
            "Run in a desktop session, under Xvfb, or set QT_QPA_PLATFORM=offscreen.",
        )
    return CheckResult("qt", "ok", "PySide6 installed, display available")


def check_opengl(_: AppContext) -> CheckResult:
    library = ctypes.util.find_library("GL") or ctypes.util.find_library("OpenGL")
    if library is None:
        return CheckResult(
            "opengl",
            "missing",
            "no OpenGL library found (3D STL views need one)",
            "apt-get install libgl1 libegl1 (Mesa), or use a machine with a GPU driver.",
        )
    return CheckResult("opengl", "ok", library)


def check_ollama(context: AppContext) -> CheckResult:
    base_url = context.settings.ollama.address()
    try:
        reply = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=2.0)
        reply.raise_for_status()
        models = [entry.get("name", "?") for entry in reply.json().get("models", [])]
    except (httpx.HTTPError, ValueError) as error:
        return CheckResult(
            "ollama",
            "missing",
            f"not reachable at {base_url} ({type(error).__name__})",
            "Start `ollama serve` or set ollama.base_url / OLLAMA_HOST; the embedded model "
            "and `reference` policies still work.",
        )
    wanted = context.settings.ollama.model
    if wanted not in models and f"{wanted}:latest" not in models:
        return CheckResult(
            "ollama",
            "fail",
            f"reachable at {base_url}, but model {wanted!r} is not pulled "
            f"(has: {', '.join(models) or 'none'})",
            f"ollama pull {wanted}",
        )
    return CheckResult("ollama", "ok", f"{base_url}, models: {', '.join(models)}")


def check_settings(context: AppContext) -> list[CheckResult]:
    """The settings file: each value it refused is a failing line naming the setting (the app
    runs without that value, so what it configured is not happening)."""
    path = context.paths.settings_file
    loaded = read_settings(path)
    fix = f"Fix it in the settings dialog or in {path}."
    if loaded.unusable:
        return [CheckResult("settings", "fail", f"{path} {loaded.unusable}; defaults in use", fix)]
    if not loaded.refused:
        return [CheckResult("settings", "ok", str(path) if path.exists() else "defaults")]
    return [
        CheckResult(f"settings {refusal.setting}", "fail", refusal.explain(), fix)
        for refusal in loaded.refused
    ]


def check_keyring(_: AppContext) -> CheckResult:
    """Where API keys and passwords go: a working keyring backend, named; a plaintext one warns."""
    status = keyring_status()
    if status.kind == "none":
        return CheckResult(
            "keyring",
            "fail",
            f"no usable keyring backend: {status.detail}; API keys and passwords (service "
            f"'{SERVICE}') cannot be stored",
            _keyring_fix(status.chosen_by),
        )
    if status.kind == "plaintext":
        return CheckResult(
            "keyring",
            "warn",
            f"plaintext file backend {status.backend} ({status.chosen_by}): {status.detail}",
            "Prefer an encrypted keyring. " + keyring_advice(),
        )
    return CheckResult(
        "keyring", "ok", f"{status.backend} ({status.chosen_by}), service '{SERVICE}'"
    )


def _keyring_fix(chosen_by: str) -> str:
    named = "PYTHON_KEYRING_BACKEND" in chosen_by or "keyringrc" in chosen_by
    return ("Fix or remove that choice. " if named else "") + keyring_advice()


def command_check(name: str, command: str, fix: str) -> Check:
    def check(_: AppContext) -> CheckResult:
        found = shutil.which(command)
        if found is None:
            return CheckResult(name, "missing", f"`{command}` not on PATH", fix)
        return CheckResult(name, "ok", found)

    return check


def module_check(name: str, module: str, fix: str) -> Check:
    def check(_: AppContext) -> CheckResult:
        if importlib.util.find_spec(module) is None:
            return CheckResult(name, "missing", f"Python package {module!r} not installed", fix)
        return CheckResult(name, "ok", f"{module} installed")

    return check


# (doctor line, settings field, the plugin that reaches those entries, its title)
def check_model_profiles(context: AppContext) -> list[CheckResult]:
    """One line per model profile: whether it can run now (its server answers and has the
    model, its key is in the keyring, its backend is installed)."""
    address = context.settings.ollama.address()
    return [_check_profile(p, p.server(address)) for p in context.settings.model_profiles]


def _check_profile(profile: ModelProfile, server: str) -> CheckResult:
    name = f"model profile {profile.name}"
    fix = "Fix it in Settings → Model profiles (there is a connection test)."
    if profile.kind in ("embedded", "llamacpp"):
        if importlib.util.find_spec("llama_cpp") is None:
            return CheckResult(name, "missing", "llama-cpp-python is not installed", fix)
        return CheckResult(name, "ok", f"{profile.kind}, in process")
    if profile.kind == "scripted":
        return CheckResult(name, "ok", "scripted replies (tests)")
    if profile.key_name:
        try:
            key = secrets.get_secret(profile.key_name)
        except secrets.SecretUnavailable as error:
            return CheckResult(name, "fail", f"the keyring cannot be read ({error})", fix)
        if not key and profile.kind == "openai-compatible":
            missing = f"no key in keyring entry {profile.key_name!r} for {server}"
            return CheckResult(name, "fail", missing, fix)
    path = "/api/tags" if profile.kind == "ollama" else "/models"
    try:
        reply = httpx.get(f"{server}{path}", timeout=2.0)
    except httpx.HTTPError as error:
        return CheckResult(name, "fail", f"{server} does not answer ({type(error).__name__})", fix)
    if profile.kind == "ollama" and reply.is_success:
        pulled = {entry.get("name") for entry in reply.json().get("models", [])}
        if not pulled & {profile.model, f"{profile.model}:latest"}:
            lacking = f"{server} has no {profile.model!r}"
            return CheckResult(name, "fail", lacking, f"ollama pull {profile.model}")
    elif not reply.is_success and reply.status_code not in (401, 403):
        return CheckResult(name, "fail", f"{server} answers HTTP {reply.status_code}", fix)
    return CheckResult(name, "ok", f"{profile.kind} {profile.model} at {server}")


CONFIGURED = (
    ("ssh hosts", "ssh_hosts", "hpc", "the HPC plugin"),
    ("printers", "printers", "printing", "the printing plugin"),
)


def check_configured(context: AppContext) -> list[CheckResult]:
    """Configured entries no loaded plugin reaches: said to be unchecked, never "ok"."""
    loaded = {plugin.name for plugin in context.plugins}
    failed = {failure.name for failure in context.plugins.failures}
    results = []
    for kind, field, plugin, title in CONFIGURED:
        if plugin in loaded:
            continue  # its own checks reach every entry, one line each
        entries: list[str] = getattr(context.settings, field)
        if not entries:
            results.append(CheckResult(kind, "ok", "none configured"))
            continue
        why = "failed to load (see its line)" if plugin in failed else "is not installed"
        results.append(
            CheckResult(
                kind,
                "warn",
                f"configured, not checked: {title} {why}: {', '.join(entries)}",
                f"Install {title} to reach them, or remove them from the settings ({field}).",
            )
        )
    return results


CORE_CHECKS: list[Check] = [
    check_python,
    check_settings,
    check_qt,
    check_opengl,
    check_ollama,
    check_model_profiles,
    check_keyring,
    command_check("omc", "omc", "Install OpenModelica for OMPython; rumoca works without it."),
    module_check("rumoca", "rumoca", "pip install rumoca"),
    command_check("prusa-slicer", "prusa-slicer", "apt-get install prusa-slicer"),
]


def run_checks(context: AppContext) -> list[CheckResult]:
    results = [result for check in CORE_CHECKS for result in _as_list(check(context))]
    results += check_configured(context)
    for plugin in context.plugins:
        if plugin.checks is None:
            continue
        try:
            checks = load_reference(plugin.checks)()
            results += [result for check in checks for result in _as_list(check(context))]
        except Exception as error:
            results.append(
                CheckResult(
                    f"plugin {plugin.name}",
                    "fail",
                    f"checks crashed: {error}",
                    "Report this to the plugin's authors.",
                )
            )
    results += [
        CheckResult(
            f"plugin {failure.name}",
            "fail",
            f"{failure.stage} failed: {failure.error}",
            "Reinstall or update the plugin, or uninstall it.",
        )
        for failure in context.plugins.failures
    ]
    loaded = ", ".join(plugin.name for plugin in context.plugins) or "none"
    results.append(CheckResult("plugins", "ok", f"loaded: {loaded}"))
    return results


def _as_list(outcome: CheckResult | list[CheckResult]) -> list[CheckResult]:
    return outcome if isinstance(outcome, list) else [outcome]
