"""The printer host as a service (workbench.core.plugins.Service): `workbench --headless serve`
runs it until stopped, and the desktop app runs it while it is open.

Starting makes this process the host of the USB printers (printers.PrinterManager.host_here); when
another process already hosts, start raises ServiceConflict naming it, and the desktop app follows
that host instead (and takes over when it stops). Stopping with a print running stops the print
(heaters off) and says so.
"""

from __future__ import annotations

from workbench.core.plugins import Service, ServiceConflict
from workbench.core.tool_host import ToolHost
from workbench_plugins.printing.host.ops import STOP_TIMEOUT_S
from workbench_plugins.printing.host.protocol import HostAlreadyRunning
from workbench_plugins.printing.printers import PrinterManager, manager_for
from workbench_plugins.printing.usb.serial_port import SerialHostError


class PrinterHostService:
    def __init__(self, app: ToolHost) -> None:
        self.app = app

    @property
    def manager(self) -> PrinterManager:
        return manager_for(self.app)

    def start(self) -> None:
        manager = self.manager
        manager.may_host = True
        try:
            manager.host_here()
        except HostAlreadyRunning as error:
            manager.follow_host()
            raise ServiceConflict(str(error)) from None
        except SerialHostError as error:  # e.g. no private folder for the socket
            raise RuntimeError(f"The printer host cannot start: {error}") from None

    def describe(self) -> str:
        manager = self.manager
        if not manager.hosting:
            return "Printer host: another process hosts the USB printers."
        return (
            f"Printer host: serving the USB printers on {manager.socket}; the CLI "
            "(`workbench --headless tool ...`), the agent and the desktop app print through it."
        )

    def busy(self) -> list[str]:
        return self.manager.busy()

    def stop(self) -> list[str]:
        manager = self.manager
        manager.may_host = False
        if not manager.hosting:
            return []
        said = manager.submit(manager.stop_hosting()).result(STOP_TIMEOUT_S + 10)
        return said or ["Printer host stopped; no print was running."]


def services(app: ToolHost) -> list[Service]:
    return [PrinterHostService(app)]
