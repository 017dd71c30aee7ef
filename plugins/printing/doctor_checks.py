"""Doctor checks of the printing plugin: the Prusa profiles, pyserial and every configured printer.

A configured printer is really reached, never assumed: a serial port is opened and must answer
M115 (the firmware handshake); a PrusaLink URL must answer /api/version and /api/v1/status with
the key (or digest password) from the keyring, in the printer's own auth mode. The status is what
proves the key: some firmware answers /api/version without one. Each line says what failed (no
answer, refused, timeout, wrong key, no key) and what to do. The core checks the PrusaSlicer CLI.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from workbench.core.doctor import Check, CheckResult, module_check
from workbench.core.secrets import SERVICE, SecretUnavailable
from workbench.core.settings import SettingsError
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.prusalink.access import MissingSecret, prusalink_client
from workbench_plugins.printing.prusalink.client import (
    PrusaLinkAuthError,
    PrusaLinkError,
    PrusaLinkUnreachable,
    RetryPolicy,
)
from workbench_plugins.printing.slicing.profiles import DEFAULT_BUNDLE
from workbench_plugins.printing.usb.serial_port import PortBusy, SerialHostError, firmware_handshake

if TYPE_CHECKING:
    from workbench.core.context import AppContext

SERIAL_TIMEOUT_S = 5.0  # an MK3 resets when the port opens and needs a few seconds to boot
HTTP_TIMEOUT_S = 3.0


def check_profiles(_: AppContext) -> CheckResult:
    if DEFAULT_BUNDLE.is_file():
        return CheckResult("prusa profiles", "ok", str(DEFAULT_BUNDLE))
    return CheckResult(
        "prusa profiles",
        "missing",
        f"{DEFAULT_BUNDLE} not found",
        "apt-get install prusa-slicer (or set profiles_path in [plugins.printing])",
    )


def check_printers(context: AppContext) -> list[CheckResult]:
    """One line per configured printer (settings `printers` and the PrusaLink URL), each reached."""
    try:
        settings = context.settings.plugin("printing", PrintingSettings)
    except SettingsError as invalid:  # the message names the field and what to fix
        return [CheckResult("printers", "fail", f"not checked: {invalid}")]
    profiles = settings.profiles(context.settings.printers)
    if not profiles:
        return [CheckResult("printers", "ok", "none configured")]
    return [
        check_prusalink(profile) if profile.transport == "prusalink" else check_serial(profile)
        for profile in profiles
    ]


def check_serial(profile: PrinterProfile) -> CheckResult:
    port = profile.address
    name = f"printer {profile.name}"
    try:
        firmware = firmware_handshake(port, profile.baudrate, SERIAL_TIMEOUT_S)
    except PortBusy as busy:
        return CheckResult(
            name,
            "warn",
            f"not checked: {busy}; a print may be running",
            "Run doctor again when the port is free (close OctoPrint, PrusaSlicer, the panel).",
        )
    except SerialHostError as error:
        return CheckResult(
            name,
            "fail",
            str(error),
            "Check that the printer is on and its USB cable plugged in, the port name in "
            "settings (printers), serial_baudrate (115200 for Prusa), and on Linux that you are "
            "in the dialout group.",
        )
    return CheckResult(name, "ok", f"answered M115: {firmware}")


def check_prusalink(profile: PrinterProfile) -> CheckResult:
    name = f"printer {profile.name}"
    enter_key = (
        "Enter it in the Printer panel's Printers... dialog, or "
        f"`keyring set {SERVICE} '{profile.secret_key}'`"
    )
    not_prusalink = "Check that the address is the printer's PrusaLink."
    try:
        client = prusalink_client(profile, timeout_s=HTTP_TIMEOUT_S, retry=RetryPolicy(attempts=1))
        version, status = _run_async(_version_and_status(client))
    except (MissingSecret, SecretUnavailable) as missing:
        return CheckResult(name, "fail", f"no key in the keyring: {missing}", enter_key)
    except PrusaLinkAuthError as refused:
        return CheckResult(name, "fail", f"bad key: {refused}", f"The right one: {enter_key}")
    except PrusaLinkUnreachable as failed:
        return CheckResult(
            name,
            "fail",
            _unreachable(failed),
            "Check the address (settings: printers, or prusalink_url in [plugins.printing]), "
            "that the printer is on with PrusaLink running, and the network.",
        )
    except PrusaLinkError as error:
        return CheckResult(name, "fail", str(error), not_prusalink)
    except (ValueError, AttributeError) as error:
        detail = f"answered, but not with PrusaLink's JSON ({error})"
        return CheckResult(name, "fail", detail, not_prusalink)
    server = version.get("text") or "PrusaLink"
    what = "key" if profile.auth == "api_key" else f"digest user '{profile.user}'"
    state = str((status.get("printer") or {}).get("state") or "unknown").lower()
    return CheckResult(
        name,
        "ok",
        f"{server}, API {version.get('api', '?')}; {what} accepted (/api/v1/status: {state})",
    )


def _unreachable(error: PrusaLinkUnreachable) -> str:
    what = {
        "refused": "connection refused: nothing listens at that address and port",
        "timeout": "timeout",
        "unreachable": "unreachable",
        "server": "the server failed",
    }[error.cause]
    if error.last == "HTTP 503":  # PrusaLink answers so until it has found its printer
        what = "PrusaLink answers but has no printer yet (starting, or the printer is off)"
    return f"{what} ({error.last})"


async def _version_and_status(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    async with client:
        return await client.version(), await client.status()


def _run_async(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run `coroutine` to the end from sync code, also when the caller's thread runs a loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def checks() -> list[Check]:
    return [
        check_profiles,
        module_check("pyserial", "serial", "pip install pyserial"),
        check_printers,
    ]
