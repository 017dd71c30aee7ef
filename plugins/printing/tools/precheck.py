"""Whether a printer call could run at all, checked before a person is asked to confirm it: the
printer it names must be configured (by name or address) or be an address (a PrusaLink URL, a
serial port path), as the tools themselves accept: an invented name is refused. Whether a port is
there is left to the tool, which asks the printer host (a print held after an unplug)."""

from __future__ import annotations

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.printing.config import PrintingSettings, is_url
from workbench_plugins.printing.printers import unknown_printer_message
from workbench_plugins.printing.tools.status import PrinterArgs


def printer_precheck(args: PrinterArgs, context: ToolContext) -> None:
    """ToolFailure naming the configured printers when `args.printer` is none of them."""
    wanted = args.printer.strip().rstrip("/")
    if is_url(wanted) or wanted.startswith("/"):
        return
    settings = context.app.settings.plugin("printing", PrintingSettings)
    addresses = context.app.settings.printers
    if settings.configured(wanted, addresses) is None:
        raise ToolFailure(
            unknown_printer_message(wanted, settings.profiles(addresses)),
            hint="Call list_printers for the printers there are, or add this one with the "
            "Printer panel's Printers... dialog.",
        )
