"""Start-up benchmark: seconds to an interactive Workbench window, warm and cold, against a bare
PySide6 window measured in the same run.

    python -m workbench.ui.startup_benchmark [--runs N] [--out DIR] [--display auto|xvfb|...]

Writes DIR/startup.json and DIR/startup.md (the table the README quotes) and prints the table.
Each start runs in a fresh process with a temporary WORKBENCH_HOME (used first by the warm-up
starts, so the measured starts are ordinary ones, not the first). The parts are in
workbench.ui.startup.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

from workbench.ui.startup import results
from workbench.ui.startup.display import CHOICES, display_for_runs
from workbench.ui.startup.launch import StartFailed
from workbench.ui.startup.page_cache import supported
from workbench.ui.startup.runner import Benchmark


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.ui.startup_benchmark",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="measured starts of each program, warm and cold"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("startup-benchmark"), help="folder for the results"
    )
    parser.add_argument(
        "--warm-ups",
        type=int,
        default=1,
        metavar="N",
        help="unmeasured starts of each program first (they also make the home a used one)",
    )
    parser.add_argument(
        "--display",
        choices=CHOICES,
        default="auto",
        help="auto: an Xvfb of its own if installed, else this desktop, else Qt offscreen",
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="longest wait for one start"
    )
    parser.add_argument(
        "--no-drop-caches",
        action="store_true",
        help="cold starts evict only the files they read, never the machine's whole page cache "
        "(by default root also writes /proc/sys/vm/drop_caches)",
    )
    options = parser.parse_args(argv)
    if options.runs < 1:
        parser.error("--runs must be at least 1")
    if options.warm_ups < 0:
        parser.error("--warm-ups cannot be negative")
    return options


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    options = parse_arguments(arguments)
    if not supported():
        print(
            "This system cannot evict files from its page cache: no cold starts.", file=sys.stderr
        )
        return 2
    command = shlex.join(["python", "-m", "workbench.ui.startup_benchmark", *arguments])
    try:
        with (
            tempfile.TemporaryDirectory(prefix="workbench-startup-") as scratch,
            display_for_runs(options.display) as display,
        ):
            print(f"Display: {display.description}; {options.runs} run(s) of each, warm and cold.")
            benchmark = Benchmark(
                display,
                Path(scratch),
                options.runs,
                warm_ups=options.warm_ups,
                timeout_s=options.timeout,
                drop_caches=not options.no_drop_caches,
            )
            measured = benchmark.run(command)
    except (StartFailed, RuntimeError, OSError) as error:
        print(f"The start-up benchmark stopped: {error}", file=sys.stderr)
        return 1
    json_path, markdown_path = results.write(measured, options.out)
    print()
    print(results.markdown(measured))
    print(f"Written: {json_path} and {markdown_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
