"""The printers dialog's data, without widgets: printers as typed, validated into profiles.

A `PrinterDraft` is one printer as the person typed it (not yet valid) plus the key or password
typed for it, which goes to the keyring and never into settings. `validate_drafts` turns drafts
into `PrinterProfile`s or problems by field, worded for people; `settings_with` puts the profiles
into the app's settings; `describe_check` words a connection test's result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from workbench.core.doctor import CheckResult
from workbench.core.settings import Settings, SettingsError
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings, is_url

Transport = Literal["serial", "prusalink"]
FIELDS = ("name", "address", "auth", "user", "storage", "baudrate")
BLANK: dict[str, Any] = {
    "name": "",
    "address": "",
    "auth": "api_key",
    "user": "maker",
    "storage": "",
    "baudrate": "115200",
}
CLEARER = {  # pydantic's wording, for the fields where a person needs an example
    ("address", "string_too_short"): "Enter the printer's serial port or PrusaLink address.",
    ("baudrate", "int_parsing"): "A whole number, e.g. 115200 (Prusa printers).",
    ("baudrate", "greater_than"): "A positive number, e.g. 115200 (Prusa printers).",
}


@dataclass
class PrinterDraft:
    """One printer as typed. `origin` is "" for a profile of this dialog, else where a bare
    address comes from (it becomes a profile only once edited)."""

    values: dict[str, Any]
    transport: Transport = "serial"
    origin: str = ""
    secret: str = ""  # typed, not yet stored in the keyring
    errors: dict[str, str] = field(default_factory=dict)  # field ("" = the printer) -> message
    test_result: str = ""  # the last connection test, in words
    test_level: str = ""  # its CheckResult level ("" while it runs)
    initial: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_profile(cls, profile: PrinterProfile, origin: str = "") -> PrinterDraft:
        values = {name: str(getattr(profile, name)) for name in FIELDS}
        if values["name"] == profile.address:
            values["name"] = ""  # the default name: it follows the address
        return cls(values, profile.transport, origin, initial=dict(values))

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> PrinterDraft:
        """A profile as the settings file holds it, possibly invalid."""
        values = {name: str(raw.get(name, BLANK[name])) for name in FIELDS}
        transport: Transport = "prusalink" if is_url(values["address"]) else "serial"
        return cls(values, transport, initial=dict(values))

    @classmethod
    def blank(cls, transport: Transport = "serial") -> PrinterDraft:
        return cls(dict(BLANK), transport)

    @property
    def label(self) -> str:
        shown = self.values["name"].strip() or self.values["address"].strip() or "(new printer)"
        return f"{shown}  ({self.origin})" if self.origin else shown

    @property
    def kept(self) -> bool:
        """Saved as a profile: one of this dialog's, or a bare address that was edited."""
        return not self.origin or self.values != self.initial


Problem = tuple[int, str, str]  # draft index, field ("" = the whole printer), message


def validate_drafts(
    drafts: list[PrinterDraft],
) -> tuple[list[PrinterProfile | None], list[Problem]]:
    """A profile per draft (None where it is invalid) and every problem, by draft and field."""
    profiles: list[PrinterProfile | None] = []
    problems: list[Problem] = []
    for index, draft in enumerate(drafts):
        profile, found = validate_draft(draft)
        profiles.append(profile)
        problems += [(index, name, message) for name, message in found.items()]
    problems += _duplicates(profiles)
    return profiles, problems


def validate_draft(draft: PrinterDraft) -> tuple[PrinterProfile | None, dict[str, str]]:
    address = draft.values["address"].strip()
    if address and draft.transport == "prusalink" and not is_url(address):
        return None, {"address": f"Start the address with http:// (e.g. http://{address})."}
    if draft.transport == "serial" and is_url(address):
        return None, {"address": "That is a URL: choose PrusaLink as the connection."}
    values = {**draft.values, "address": address, "name": draft.values["name"].strip()}
    try:
        return PrinterProfile.model_validate(values), {}
    except ValidationError as invalid:
        found: dict[str, str] = {}
        for error in invalid.errors(include_url=False):
            # the model's own check (a password inside the URL) is about the address
            name = str(error["loc"][0]) if error["loc"] else "address"
            message = CLEARER.get((name, error["type"]), error["msg"].removeprefix("Value error, "))
            found.setdefault(name, message)
        return None, found


def _duplicates(profiles: list[PrinterProfile | None]) -> list[Problem]:
    problems: list[Problem] = []
    names: dict[str, int] = {}
    addresses: dict[str, int] = {}
    for index, profile in enumerate(profiles):
        if profile is None:
            continue
        if profile.name in names:
            problems.append((index, "name", f"Another printer is already called {profile.name!r}."))
        elif profile.address in addresses:
            other = profiles[addresses[profile.address]]
            owner = other.name if other is not None else profile.address
            problems.append((index, "address", f"Printer {owner!r} already has this address."))
        names.setdefault(profile.name, index)
        addresses.setdefault(profile.address, index)
    return problems


def settings_with(settings: Settings, profiles: list[PrinterProfile]) -> Settings:
    """`settings` with these printer profiles; the rest of [plugins.printing] as it was."""
    section = dict(settings.plugins.get("printing", {}))
    section["printers"] = [profile.model_dump(mode="json") for profile in profiles]
    try:
        printing = PrintingSettings.model_validate(section)
    except ValidationError as invalid:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
            for error in invalid.errors(include_url=False)
        )
        raise SettingsError(
            f"[plugins.printing] has other invalid values ({problems}); fix them in the "
            "Settings dialog first."
        ) from None
    return settings.with_plugin("printing", printing)


def describe_check(result: CheckResult) -> str:
    """A connection test's result in words (the check's own detail and what to do next)."""
    if result.level == "ok":
        return f"Connected: {result.detail}."
    fix = f" {result.fix}" if result.fix else ""
    if result.level == "warn":
        return f"Not tested: {result.detail}.{fix}"
    return f"Failed: {result.detail}.{fix}"


def serial_ports() -> list[tuple[str, str]]:
    """Serial ports the system knows, as (device, description); none without pyserial."""
    try:
        from serial.tools import list_ports
    except ImportError:  # doctor reports pyserial missing; the port can still be typed
        return []
    try:
        return [(port.device, port.description or "") for port in list_ports.comports()]
    except OSError:  # a system without the usual device folders
        return []
