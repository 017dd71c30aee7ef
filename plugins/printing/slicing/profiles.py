"""Prusa presets by name: resolve a vendor bundle's `inherits` chains into one flat config.

PrusaSlicer 2.5's command line cannot pick a preset by name and `--load PrusaResearch.ini` silently
gives a generic config, so we read the bundle ourselves: each `[printer:NAME]`, `[print:NAME]` and
`[filament:NAME]` section may inherit from others of its kind (`inherits = *common*; *MK3*`, later
parents win, own keys win last). Values keep the bundle's escaping (`\\n`, `\\"`), which is also the
escaping of a PrusaSlicer config .ini, so they are copied verbatim.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DEFAULT_BUNDLE = Path("/usr/share/PrusaSlicer/profiles/PrusaResearch.ini")
KINDS = ("printer", "print", "filament")

# Short names people use for the bundled printers.
PRINTER_ALIASES = {
    "MK3S": "Original Prusa i3 MK3S & MK3S+",
    "MK3S+": "Original Prusa i3 MK3S & MK3S+",
    "MK3": "Original Prusa i3 MK3",
    "MK2.5S": "Original Prusa i3 MK2.5S",
    "MK2.5": "Original Prusa i3 MK2.5",
    "MINI": "Original Prusa MINI & MINI+",
    "MINI+": "Original Prusa MINI & MINI+",
}
# Keys that describe presets to the GUI, not the slice: they must not reach the flat config.
_NOT_CONFIG = {
    "inherits",
    "renamed_from",
    "compatible_printers",
    "compatible_printers_condition",
    "compatible_prints",
    "compatible_prints_condition",
    "default_print_profile",
    "default_filament_profile",
    "default_sla_print_profile",
    "default_sla_material_profile",
}


class ProfileError(ValueError):
    """A preset that does not exist, or a bundle that cannot be read."""


@dataclass
class Bundle:
    path: Path
    sections: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    def names(self, kind: str, *, concrete: bool = True) -> list[str]:
        found = self.sections.get(kind, {})
        return [n for n in found if not (concrete and n.startswith("*") and n.endswith("*"))]

    def raw(self, kind: str, name: str) -> dict[str, str]:
        try:
            return self.sections[kind][name]
        except KeyError:
            close = [n for n in self.names(kind) if name.lower() in n.lower()][:8]
            hint = f" Close matches: {'; '.join(close)}." if close else ""
            raise ProfileError(
                f"There is no {kind} preset {name!r} in {self.path.name}.{hint}"
            ) from None

    def resolve(self, kind: str, name: str, _seen: tuple[str, ...] = ()) -> dict[str, str]:
        """The preset's keys after applying its inheritance chain."""
        if name in _seen:
            raise ProfileError(f"The {kind} preset {name!r} inherits from itself: {_seen}.")
        own = self.raw(kind, name)
        merged: dict[str, str] = {}
        for parent in filter(None, (p.strip() for p in own.get("inherits", "").split(";"))):
            merged.update(self.resolve(kind, parent.strip('"'), (*_seen, name)))
        merged.update(own)
        return merged


def parse_bundle(text: str, path: Path) -> Bundle:
    bundle = Bundle(path)
    current: dict[str, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            kind, _, name = stripped[1:-1].partition(":")
            current = bundle.sections.setdefault(kind, {}).setdefault(name, {}) if name else None
            continue
        if current is not None and "=" in stripped:
            key, _, value = stripped.partition("=")
            current[key.strip()] = value.strip()
    return bundle


@lru_cache(maxsize=4)
def _load_cached(path: str, mtime: float) -> Bundle:
    return parse_bundle(Path(path).read_text(encoding="utf-8"), Path(path))


def load_bundle(path: Path | None = None) -> Bundle:
    path = Path(path or DEFAULT_BUNDLE)
    if not path.is_file():
        raise ProfileError(
            f"The Prusa profile bundle {path} does not exist. Install PrusaSlicer "
            "(Debian: apt-get install prusa-slicer) or set the profiles path in the printing "
            "settings."
        )
    return _load_cached(str(path), path.stat().st_mtime)


def printer_name(name: str) -> str:
    return PRINTER_ALIASES.get(name.strip().upper(), name.strip())


@dataclass(frozen=True)
class ResolvedPresets:
    printer: str
    print: str
    filament: str
    printer_model: str
    bed_shape: list[tuple[float, float]]
    max_print_height: float
    config: dict[str, str]

    def ini_text(self) -> str:
        return "".join(f"{key} = {value}\n" for key, value in sorted(self.config.items()))


def resolve_presets(
    printer: str,
    print_preset: str | None = None,
    filament: str | None = None,
    *,
    bundle_path: Path | None = None,
) -> ResolvedPresets:
    """Printer, print and filament presets merged into one flat config (print-ready)."""
    bundle = load_bundle(bundle_path)
    printer = printer_name(printer)
    printer_keys = bundle.resolve("printer", printer)
    print_preset = print_preset or printer_keys.get("default_print_profile", "").strip('"')
    filament = filament or printer_keys.get("default_filament_profile", "").strip('"')
    if not print_preset or not filament:
        raise ProfileError(f"Name the print and filament presets for {printer!r}.")
    print_keys = bundle.resolve("print", print_preset)
    filament_keys = bundle.resolve("filament", filament)
    config: dict[str, str] = {}
    for keys in (printer_keys, print_keys, filament_keys):
        config.update({k: v for k, v in keys.items() if k not in _NOT_CONFIG})
    # Start G-code templates test these ids (e.g. filament_settings_id[initial_tool]).
    config["printer_settings_id"] = printer
    config["print_settings_id"] = print_preset
    config["filament_settings_id"] = f'"{filament}"'
    return ResolvedPresets(
        printer=printer,
        print=print_preset,
        filament=filament,
        printer_model=config.get("printer_model", ""),
        bed_shape=parse_bed_shape(config.get("bed_shape", "")),
        max_print_height=float(config.get("max_print_height", "0") or 0),
        config=config,
    )


def parse_bed_shape(text: str) -> list[tuple[float, float]]:
    """'0x0,250x0,250x210,0x210' -> corner points in mm."""
    points = []
    for corner in filter(None, (part.strip() for part in text.split(","))):
        x, _, y = corner.partition("x")
        points.append((float(x), float(y)))
    return points


def write_ini(presets: ResolvedPresets, path: Path) -> Path:
    partial = path.with_name(path.name + ".part")
    partial.write_text(presets.ini_text(), encoding="utf-8")
    shutil.move(partial, path)
    return path
