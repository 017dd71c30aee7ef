"""Test rig: a real single-node Slurm 22.05 cluster (munged, slurmctld, slurmd) and an sshd, all on
127.0.0.1, from Debian's packages (packaging/apt-packages.txt), with every file in the rig's folder.

The daemons run in the foreground in sessions of their own, so the rig can stop them whatever
state a test left them in. Config choices are the ones measured to work in a container without
systemd or cgroups (see the `_slurm_conf` comments); the cluster takes about 4 s to accept jobs.

    cluster = SlurmCluster(folder)
    info = cluster.start()   # ClusterInfo: ssh_port, user, key_file, known_hosts, slurm_conf, ...
    cluster.drop_ssh_connections(); cluster.restart_controller(); cluster.stop()

A development cluster that outlives the command: `python -m tests.rigs.slurm_cluster up FOLDER`
(writes FOLDER/info.json) and `python -m tests.rigs.slurm_cluster down FOLDER`.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sshd")
SBIN = Path("/usr/sbin")
PARTITION = "debug"
NODE = "wbnode"
MISSING = (
    "the Slurm rig needs Debian's slurm-wlm, munge and openssh-server "
    "(packaging/apt-packages.txt; `bash packaging/bootstrap.sh` installs them as root)"
)


def slurm_rig_available() -> bool:
    return (
        all((SBIN / name).exists() for name in DAEMONS) and shutil.which("ssh-keygen") is not None
    )


def require_slurm_rig() -> None:
    """Skip the test here (or fail it in CI) when Slurm, munge or sshd is not installed."""
    from tests.rigs.require import require_rig  # pytest: not needed by `up`/`down`

    require_rig("slurm", slurm_rig_available(), MISSING)


@dataclass(frozen=True)
class ClusterInfo:
    folder: str
    host: str
    ssh_port: int
    user: str
    key_file: str
    known_hosts: str
    host_key_line: str  # the known_hosts line of the rig's sshd
    slurm_conf: str
    partition: str
    node: str
    cpus: int


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(what: str, ready: object, timeout: float, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(ready) and ready():
            return
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
    raise RuntimeError(f"the Slurm rig's {what} did not come up in {timeout:.0f} s\n{tail}")


class SlurmCluster:
    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.slurm_conf = self.folder / "slurm.conf"
        self.cpus = max(2, os.cpu_count() or 2)
        self.ports = {"ctld": _free_port(), "slurmd": _free_port(), "ssh": _free_port()}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    # -- life cycle -----------------------------------------------------------------------------
    def start(self) -> ClusterInfo:
        for sub in ("state", "spool", "log", "munge", "ssh", "jobs"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation dir
        self._write_munge_key()
        self._write_ssh_keys()
        self.slurm_conf.write_text(self._slurm_conf())
        (self.folder / "sshd_config").write_text(self._sshd_config())
        try:
            self._start_munged()
            self._start_slurmctld()
            self._start_slurmd()
            self._start_sshd()
            self._wait_until_node_idle()
        except BaseException:
            self.stop()
            raise
        info = self.info()
        (self.folder / "info.json").write_text(json.dumps(asdict(info), indent=2))
        return info

    def info(self) -> ClusterInfo:
        return ClusterInfo(
            folder=str(self.folder),
            host="127.0.0.1",
            ssh_port=self.ports["ssh"],
            user=getpass.getuser(),
            key_file=str(self.folder / "ssh" / "id_ed25519"),
            known_hosts=str(self.folder / "ssh" / "known_hosts"),
            host_key_line=(self.folder / "ssh" / "known_hosts").read_text().strip(),
            slurm_conf=str(self.slurm_conf),
            partition=PARTITION,
            node=NODE,
            cpus=self.cpus,
        )

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            _terminate(self.processes.pop(name))

    def restart_controller(self) -> None:
        """Stop slurmctld and start it again on its saved state, as an admin's restart does."""
        self.stop_controller()
        self.start_controller()

    def stop_controller(self) -> None:
        """Stop slurmctld (jobs keep running on slurmd); Slurm commands fail until it is back."""
        _terminate(self.processes.pop("slurmctld"))

    def start_controller(self) -> None:
        """Start slurmctld on its saved state, and wait until the node answers it again."""
        self._start_slurmctld()
        self._wait_until_node_idle(any_state=True)

    def drop_ssh_connections(self) -> int:
        """Kill every connection sshd is serving (the listener stays): a dropped network link."""
        listener = self.processes["sshd"].pid
        children = [pid for pid in _all_pids() if _parent_of(pid) == listener]
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return len(children)

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """A Slurm client command on this cluster, locally (for checks a test makes itself)."""
        env = {**os.environ, "SLURM_CONF": str(self.slurm_conf)}
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30)

    def __enter__(self) -> ClusterInfo:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- files ----------------------------------------------------------------------------------
    def _write_munge_key(self) -> None:
        key = self.folder / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
        key.chmod(0o400)

    def _write_ssh_keys(self) -> None:
        ssh = self.folder / "ssh"
        for name in ("host_ed25519", "id_ed25519"):
            if not (ssh / name).exists():
                subprocess.run(
                    ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(ssh / name)],
                    check=True,
                )
        (ssh / "authorized_keys").write_text((ssh / "id_ed25519.pub").read_text())
        host_key = (ssh / "host_ed25519.pub").read_text().split()
        line = f"[127.0.0.1]:{self.ports['ssh']} {host_key[0]} {host_key[1]}\n"
        (ssh / "known_hosts").write_text(line)

    def _slurm_conf(self) -> str:
        f = self.folder
        return f"""# written by tests/rigs/slurm_cluster.py
ClusterName=wbrig{self.ports["ctld"]}
SlurmctldHost={socket.gethostname()}(127.0.0.1)
SlurmctldPort={self.ports["ctld"]}
SlurmdPort={self.ports["slurmd"]}
SlurmUser={getpass.getuser()}
SlurmdUser={getpass.getuser()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={f}/munge/munge.socket
# bind to 127.0.0.1 only
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation={f}/state
SlurmdSpoolDir={f}/spool
SlurmctldPidFile={f}/slurmctld.pid
SlurmdPidFile={f}/slurmd.pid
SlurmctldLogFile={f}/log/slurmctld.log
SlurmdLogFile={f}/log/slurmd.log
# no cgroups and no systemd in a container
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# else a job waits ~3 s for the batch scheduler
SchedulerParameters=batch_sched_delay=0
SchedulerType=sched/backfill
# Debian's build has no accounting_storage/filetxt: finished jobs for `sacct -c` come from here
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={f}/log/jobcomp.txt
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName={NODE} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
"""

    def _sshd_config(self) -> str:
        f = self.folder
        return f"""# written by tests/rigs/slurm_cluster.py
ListenAddress 127.0.0.1
Port {self.ports["ssh"]}
HostKey {f}/ssh/host_ed25519
AuthorizedKeysFile {f}/ssh/authorized_keys
PidFile {f}/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
# non-interactive commands find this cluster's config
SetEnv SLURM_CONF={self.slurm_conf}
Subsystem sftp internal-sftp
LogLevel ERROR
"""

    # -- daemons --------------------------------------------------------------------------------
    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.folder / "log" / f"{name}.out", "ab")  # noqa: SIM115 - the child owns it
        env = {**os.environ, "SLURM_CONF": str(self.slurm_conf)}
        self.processes[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        log.close()

    def _start_munged(self) -> None:
        m = self.folder / "munge"
        self._spawn(
            "munged",
            [
                str(SBIN / "munged"),
                "--foreground",
                "--force",
                f"--socket={m}/munge.socket",
                f"--key-file={m}/munge.key",
                f"--pid-file={m}/munged.pid",
                f"--log-file={m}/munged.log",
                f"--seed-file={m}/munged.seed",
            ],
        )
        _wait_for("munged", (m / "munge.socket").exists, 10, m / "munged.log")

    def _start_slurmctld(self) -> None:
        self._spawn("slurmctld", [str(SBIN / "slurmctld"), "-D", "-f", str(self.slurm_conf)])
        _wait_for(
            "slurmctld",
            lambda: self.run("scontrol", "ping").stdout.count("UP") > 0,
            20,
            self.folder / "log" / "slurmctld.log",
        )

    def _start_slurmd(self) -> None:
        self._spawn("slurmd", [str(SBIN / "slurmd"), "-D", "-N", NODE, "-f", str(self.slurm_conf)])

    def _start_sshd(self) -> None:
        self._spawn(
            "sshd", [str(SBIN / "sshd"), "-D", "-e", "-f", str(self.folder / "sshd_config")]
        )

        def accepts() -> bool:
            try:
                socket.create_connection(("127.0.0.1", self.ports["ssh"]), timeout=0.5).close()
            except OSError:
                return False
            return True

        _wait_for("sshd", accepts, 10, self.folder / "log" / "sshd.out")

    def _wait_until_node_idle(self, any_state: bool = False) -> None:
        def idle() -> bool:
            states = self.run("sinfo", "-h", "-o", "%T").stdout.split()
            wanted = ("idle", "mixed", "allocated") if any_state else ("idle",)
            return any(state.rstrip("*~#") in wanted for state in states)

        _wait_for("node", idle, 30, self.folder / "log" / "slurmd.log")


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
    except ProcessLookupError:
        pass


def _all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def _parent_of(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    # the command name in parentheses may hold spaces: the fields after its ')' are fixed
    return int(stat.rsplit(")", 1)[1].split()[1])


def _main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("up", "down"):
        print("usage: python -m tests.rigs.slurm_cluster up|down FOLDER", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    if argv[0] == "down":
        pids = json.loads((folder / "pids.json").read_text())
        for pid in pids.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGTERM)
        return 0
    cluster = SlurmCluster(folder)
    info = cluster.start()
    (folder / "pids.json").write_text(json.dumps({k: p.pid for k, p in cluster.processes.items()}))
    print(json.dumps(asdict(info), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
