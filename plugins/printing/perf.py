"""Streaming benchmark: lines per second to the emulator, and the heartbeat of the caller's loop.

The printers' loop runs in its own thread (as in the app); the calling thread plays the GUI: an
asyncio timer ticks every `heartbeat_ms` and we report how late its ticks came while streaming.
A blocked GUI would show as gaps far above the tick interval.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from workbench_plugins.printing.usb.emulator import EmulatorOptions, MarlinEmulator
from workbench_plugins.printing.usb.serial_host import SerialHost


def synthetic_gcode(path: Path, lines: int) -> Path:
    """Moves like a sliced perimeter, with M73 progress every 1%."""
    step = max(1, lines // 100)
    with path.open("w") as out:
        for i in range(lines):
            if i % step == 0:
                out.write(f"M73 P{i * 100 // lines} R{(lines - i) // step}\n")
            out.write(
                f"G1 X{50 + (i % 100) * 0.5:.2f} Y{50 + (i // 100) % 100 * 0.5:.2f} "
                f"E0.0{i % 9 + 1} F1800\n"
            )
    return path


def stream_benchmark(
    lines: int = 5000,
    *,
    window: int = 1,
    checksum_error_rate: float = 0.0,
    heartbeat_ms: float = 10.0,
    gcode: Path | None = None,
    timeout_s: float = 300.0,
) -> dict[str, Any]:
    """Stream `lines` G-code lines to a fresh emulator; returns rates and heartbeat gaps."""
    with tempfile.TemporaryDirectory(prefix="wb-stream-") as folder:
        source = gcode or synthetic_gcode(Path(folder) / "bench.gcode", lines)
        emulator = MarlinEmulator(EmulatorOptions(checksum_error_rate=checksum_error_rate))
        emulator.start()
        try:
            return asyncio.run(_measure(emulator, source, window, heartbeat_ms / 1000, timeout_s))
        finally:
            emulator.stop()


async def _measure(
    emulator: MarlinEmulator, gcode: Path, window: int, tick_s: float, timeout_s: float
) -> dict[str, Any]:
    import threading

    loop = asyncio.new_event_loop()  # the printers' loop, in its own thread as in the app
    thread = threading.Thread(target=loop.run_forever, name="bench-printing-io", daemon=True)
    thread.start()
    host = SerialHost(emulator.port, window=window, boot_timeout_s=2)

    async def stream() -> float:
        await host.connect()
        started = time.perf_counter()
        await host.start_print(gcode)
        await host.wait_idle(timeout_s)
        return time.perf_counter() - started

    ticks: list[float] = []
    streaming = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(stream(), loop))
    try:
        while not streaming.done():
            ticks.append(time.perf_counter())
            await asyncio.sleep(tick_s)
        elapsed = await streaming
    finally:  # the link and its watchdog task end before their loop does
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(host.disconnect(), loop))
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        if not thread.is_alive():
            loop.close()
    gaps = [b - a for a, b in itertools.pairwise(ticks)] or [0.0]
    job = host.job
    sent = job.confirmed if job else 0
    return {
        "lines": sent,
        "complete": float(job is not None and job.done),
        "seconds": elapsed,
        "lines_per_s": sent / elapsed if elapsed else 0.0,
        "window": window,
        "checksum_errors": emulator.errors_injected,
        "resends": host.resends,
        "heartbeat_interval_ms": tick_s * 1000,
        "heartbeat_median_ms": statistics.median(gaps) * 1000,
        "heartbeat_p99_ms": sorted(gaps)[int(0.99 * (len(gaps) - 1))] * 1000,
        "heartbeat_max_ms": max(gaps) * 1000,
    }
