"""The printing plugin's settings ([plugins.printing]); secrets are in the keyring, never here.

A printer is a `PrinterProfile`: a name people use, an address (a serial port or a PrusaLink URL)
and how to reach it. Profiles come from `[[plugins.printing.printers]]`; a bare address in the
app's `printers` list, and the older single `prusalink_url`, become profiles with defaults.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from workbench.core.settings import refuse_url_credentials

AuthMode = Literal["api_key", "digest"]


def is_url(address: str) -> bool:
    return address.startswith(("http://", "https://"))


def prusalink_secret_key(url: str, auth: str) -> str:
    """The keyring entry of a PrusaLink host: its API key or its digest password."""
    return f"prusalink:{url.rstrip('/')}:{'api_key' if auth == 'api_key' else 'password'}"


def _refuse_password(url: str, auth: str, where: str) -> None:
    bare = re.sub(r"//[^/@]*@", "//", url)
    refuse_url_credentials(url, where, prusalink_secret_key(bare, auth))


class PrinterProfile(BaseModel):
    """One printer: where it is and how to talk to it (its key or password: in the keyring)."""

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    name: str = Field("", description="What you call it (empty: its address)")
    address: str = Field(
        ..., min_length=1, description="Serial port (/dev/ttyACM0) or PrusaLink URL (http://...)"
    )
    auth: AuthMode = Field(
        "api_key", description="PrusaLink: X-Api-Key (MK3 PrusaLink) or HTTP digest (MINI/MK4/XL)"
    )
    user: str = Field("maker", description="PrusaLink digest user name")
    storage: str = Field(
        "", description="PrusaLink storage to upload to (empty: the one the printer reports)"
    )
    baudrate: int = Field(115200, gt=0, description="USB serial speed")

    @model_validator(mode="after")
    def _named(self) -> PrinterProfile:
        if is_url(self.address):
            _refuse_password(self.address, self.auth, "plugins.printing.printers.address")
            self.address = self.address.rstrip("/")
        if not self.name:
            self.name = self.address
        return self

    @property
    def transport(self) -> Literal["serial", "prusalink"]:
        return "prusalink" if is_url(self.address) else "serial"

    @property
    def secret_key(self) -> str:
        """The keyring entry (service `workbench`) holding this printer's API key or password."""
        return prusalink_secret_key(self.address, self.auth)


class PrintingSettings(BaseModel):
    # hide_input_in_errors: a refused URL may hold a password, which must not reach a message
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    slicer_path: str = Field("prusa-slicer", description="PrusaSlicer executable (name or path)")
    profiles_path: str = Field(
        "", description="Vendor profile bundle (empty: the one PrusaSlicer installs)"
    )
    default_printer: str = Field("MK3S", description="Printer preset or alias (MK3S, MINI, ...)")
    serial_baudrate: int = Field(115200, gt=0, description="USB serial speed")
    printers: list[PrinterProfile] = Field(
        default_factory=list,
        description="Printers, each with its own address and access",
        # the settings form shows a count and a button to this editor (core UI never imports it)
        json_schema_extra={
            "edited_in": "the Printer panel's Printers... dialog",
            "editor": "workbench_plugins.printing.views.printer_settings:open_printer_settings",
        },
    )
    prusalink_url: str = Field("", description="PrusaLink address, e.g. http://192.168.1.20")
    prusalink_auth: AuthMode = Field(
        "api_key", description="X-Api-Key (MK3 PrusaLink) or HTTP digest (MINI/MK4 firmware)"
    )
    prusalink_user: str = Field("maker", description="Digest user name (password in the keyring)")
    slice_timeout_s: float = Field(600.0, gt=0, description="Give up slicing after this long")

    @model_validator(mode="after")
    def _no_password_in_url(self) -> PrintingSettings:
        _refuse_password(self.prusalink_url, self.prusalink_auth, "plugins.printing.prusalink_url")
        return self

    def profiles(self, addresses: Sequence[str] = ()) -> list[PrinterProfile]:
        """Every printer: the profiles, then bare `addresses` (the app's `printers` setting) and
        `prusalink_url` not already among them, with this section's defaults."""
        found = list(self.printers)
        known = {p.address for p in found} | {p.name for p in found}
        for address in [*addresses, self.prusalink_url]:
            address = address.strip().rstrip("/")
            if address and address not in known:
                found.append(self.default_profile(address))
                known.add(address)
        return found

    def default_profile(self, address: str) -> PrinterProfile:
        """A profile for an address no profile names (the section's defaults apply)."""
        return PrinterProfile(
            address=address,
            auth=self.prusalink_auth,
            user=self.prusalink_user,
            baudrate=self.serial_baudrate,
        )

    def configured(self, printer: str, addresses: Sequence[str] = ()) -> PrinterProfile | None:
        """The profile called `printer` (by name or address), or None."""
        wanted = printer.strip().rstrip("/")
        for profile in self.profiles(addresses):
            if wanted in (profile.name, profile.address):
                return profile
        return None

    def profile(self, printer: str, addresses: Sequence[str] = ()) -> PrinterProfile:
        """The profile called `printer` (by name or address); an unknown address gets defaults."""
        found = self.configured(printer, addresses)
        return found or self.default_profile(printer.strip().rstrip("/"))
