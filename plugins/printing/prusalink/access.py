"""A PrusaLink client for a printer profile: its URL, auth mode, user and storage, with its
secret from the keyring (MissingSecret names the entry and where to enter it)."""

from __future__ import annotations

from typing import Any

from workbench.core.secrets import SERVICE, get_secret
from workbench_plugins.printing.config import PrinterProfile
from workbench_plugins.printing.prusalink.client import PrusaLinkClient, PrusaLinkError


class MissingSecret(PrusaLinkError):
    """No API key or password for a PrusaLink host in the keyring."""


def prusalink_client(profile: PrinterProfile, **options: Any) -> PrusaLinkClient:
    """A client for `profile`'s URL, in its own auth mode (MissingSecret names the keyring
    entry to fill)."""
    entry = profile.secret_key
    secret = get_secret(entry)
    if not secret:
        what = (
            "API key" if profile.auth == "api_key" else f"digest password (user '{profile.user}')"
        )
        raise MissingSecret(
            f"No PrusaLink {what} for {profile.address} in the keyring (service '{SERVICE}', "
            f"entry '{entry}'). Enter it in the Printer panel's Printers... dialog, or "
            f"`keyring set {SERVICE} '{entry}'`."
        )
    return PrusaLinkClient(
        profile.address,
        secret,
        auth=profile.auth,
        user=profile.user,
        storage=profile.storage,
        **options,
    )
