"""Trust a cluster's SSH host key from a terminal, after seeing its fingerprint:
`python -m workbench_plugins.hpc.trust HOST [--yes]`.

The headless half of the queue view's "Trust this host..." dialog: the key is written to the app's
own known_hosts only when the person answers yes (or passed --yes having compared the
fingerprint); a changed key is refused as everywhere else.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from workbench.core.context import AppContext
from workbench_plugins.hpc.config import HpcSettings, settings_of
from workbench_plugins.hpc.ssh.errors import SshFailure, UnknownHostKey
from workbench_plugins.hpc.ssh.pool import SshPool


def asking(answer: Callable[[str], str], assume_yes: bool) -> Callable[[UnknownHostKey], bool]:
    """A confirm callback that shows the fingerprint and takes yes from --yes or the answer."""

    def confirm(unknown: UnknownHostKey) -> bool:
        print(f"{unknown.hostname} port {unknown.port} offers a {unknown.key_type} key:")
        print(f"  {unknown.fingerprint}")
        print(f"Compare it with: {unknown.advice}")
        if assume_yes:
            print("Trusted (--yes).")
            return True
        return answer("Trust this key? [y/N] ").strip().lower() in ("y", "yes")

    return confirm


def trust(settings: HpcSettings, host: str, confirm: Callable[[UnknownHostKey], bool]) -> str:
    """Connect to `host`, asking `confirm` if its key is unknown; a line saying what happened."""
    with SshPool(settings, confirm=confirm) as pool:
        home = pool.shell(host).home()
    return f"{host}: connected (host key known; remote home {home})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench_plugins.hpc.trust")
    parser.add_argument("host", help="a host profile's name or a Host of ~/.ssh/config")
    parser.add_argument("--yes", action="store_true", help="trust an unknown key without asking")
    args = parser.parse_args(argv)
    context = AppContext.open()
    try:
        print(trust(settings_of(context), args.host, asking(input, args.yes)))
    except UnknownHostKey as refused:
        print(f"Not trusted: {refused}", file=sys.stderr)
        return 1
    except SshFailure as failure:
        print(f"{failure} ({failure.advice})", file=sys.stderr)
        return 1
    finally:
        context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
