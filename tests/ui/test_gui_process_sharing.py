"""What the GUI process does to share the machine (`share_the_interpreter_with_the_gui`, as
`run_gui` calls it): a short GIL switch interval, and BLAS on one thread (OpenBLAS's helper
threads spin on a CPU after each call, beside the job workers that do the heavy math)."""

from __future__ import annotations

import sys

from threadpoolctl import threadpool_info

from workbench.ui.app import GUI_SWITCH_INTERVAL_S, share_the_interpreter_with_the_gui


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_the_gui_process_keeps_blas_to_one_thread_and_switches_the_gil_often() -> None:
    switch_interval = sys.getswitchinterval()
    blas = share_the_interpreter_with_the_gui()
    try:
        assert blas_threads() and set(blas_threads()) == {1}
        assert sys.getswitchinterval() == GUI_SWITCH_INTERVAL_S
    finally:
        blas.restore_original_limits()
        sys.setswitchinterval(switch_interval)
