"""SSH to the real rig (sshd + Slurm on 127.0.0.1): commands, files, reconnects, failures."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hpc.ssh_support import new_key_file, own_user_home
from tests.rigs.slurm_cluster import ClusterInfo, SlurmCluster
from workbench.core.secrets import set_secret
from workbench_plugins.hpc.config import HostProfile, HpcSettings, passphrase_entry
from workbench_plugins.hpc.ssh.errors import SshFailure
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.ssh.profiles import jump_profiles, resolve_host


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_user_home(tmp_path, monkeypatch)


def _with_profile(settings: HpcSettings, **changes: object) -> HpcSettings:
    profile = settings.hosts[0].model_copy(update=changes)
    return settings.model_copy(update={"hosts": [profile]})


def test_remote_arguments_arrive_verbatim(ssh_pool: SshPool) -> None:
    tricky = ["a b; rm -rf x", "'q'", '"dq" $HOME `id` *', "", "new\nline"]
    result = ssh_pool.shell("local").run(["printf", "%s|\n", *tricky])
    assert result.ok, result.stderr
    assert result.stdout == "".join(f"{word}|\n" for word in tricky)


def test_exit_code_stderr_and_stdin(ssh_pool: SshPool) -> None:
    shell = ssh_pool.shell("local")
    failed = shell.run(["ls", "/no/such/folder"])
    assert failed.exit_code != 0 and "/no/such/folder" in failed.stderr
    echoed = shell.run(["cat"], stdin="through stdin; not a command\n")
    assert echoed.stdout == "through stdin; not a command\n"


def test_slurm_answers_over_ssh(ssh_pool: SshPool, slurm_cluster: ClusterInfo) -> None:
    result = ssh_pool.shell("local").run(["sinfo", "-h", "-o", "%P"]).check("sinfo")
    assert slurm_cluster.partition in result.stdout


def test_home_and_files(ssh_pool: SshPool, hpc_settings: HpcSettings, tmp_path: Path) -> None:
    shell = ssh_pool.shell("local")
    assert shell.home() == shell.run(["printenv", "HOME"]).stdout.strip()
    root = hpc_settings.hosts[0].remote_root
    script = f"{root}/deep/er/job.sh"
    shell.write_text(script, "#!/bin/sh\necho héllo\n", mode=0o750)
    assert shell.run([script]).stdout == "héllo\n"  # written whole, executable
    assert shell.read_text(script, offset=10) == "echo héllo\n"
    assert shell.read_text(script, offset=15, limit=3) == "hé"  # é cut in half: left for later
    assert shell.read_text(script, offset=10_000) == ""
    with pytest.raises(FileNotFoundError, match="local:"):
        shell.read_text(f"{root}/missing.log")

    source = tmp_path / "inputs"
    (source / "sub").mkdir(parents=True)
    (source / "a.txt").write_text("A")
    (source / "sub" / "b.bin").write_bytes(bytes(range(256)))
    shell.upload(source, f"{root}/inputs")
    back = shell.download(f"{root}/inputs", tmp_path / "back")
    assert (back / "a.txt").read_text() == "A"
    assert (back / "sub" / "b.bin").read_bytes() == bytes(range(256))
    single = shell.download(f"{root}/inputs/a.txt", tmp_path / "one" / "a.txt")
    assert single.read_text() == "A"


def test_tilde_paths_are_the_remote_home(ssh_pool: SshPool, hpc_settings: HpcSettings) -> None:
    shell = ssh_pool.shell("local")
    name = f"~/.workbench-ssh-test-{Path(hpc_settings.hosts[0].remote_root).parent.name}"
    shell.write_text(f"{name}/x.txt", "home")
    try:
        assert shell.read_text(f"{shell.home()}/{name[2:]}/x.txt") == "home"
    finally:
        shell.run(["rm", "-rf", f"{shell.home()}/{name[2:]}"])


def test_one_connection_for_commands_and_files(
    ssh_pool: SshPool, hpc_settings: HpcSettings
) -> None:
    shell = ssh_pool.shell("local")
    first = shell.run(["printenv", "SSH_CONNECTION"]).stdout
    shell.home()
    shell.write_text(f"{hpc_settings.hosts[0].remote_root}/one.txt", "x")
    again = shell.run(["printenv", "SSH_CONNECTION"]).stdout
    assert first == again  # the same client port: the same TCP connection
    assert ssh_pool.shell("local") is shell


def test_dropped_connection_is_reestablished(
    ssh_pool: SshPool, slurm_rig: SlurmCluster, hpc_settings: HpcSettings
) -> None:
    shell = ssh_pool.shell("local")
    before = shell.run(["printenv", "SSH_CONNECTION"]).stdout
    assert slurm_rig.drop_ssh_connections() >= 1
    after = shell.run(["printenv", "SSH_CONNECTION"]).stdout
    assert after and after != before  # a new connection, from a new client port
    assert shell.reconnects == 1
    slurm_rig.drop_ssh_connections()
    path = f"{hpc_settings.hosts[0].remote_root}/after-drop.txt"
    shell.write_text(path, "files too")
    assert shell.read_text(path) == "files too"
    assert shell.run(["sinfo", "--version"]).ok


def test_refused_port_says_refused(hpc_settings: HpcSettings) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        SshPool(_with_profile(hpc_settings, port=port)) as pool,
        pytest.raises(SshFailure) as refused,
    ):
        pool.shell("local").run(["true"])
    assert refused.value.kind == "refused"
    assert f"127.0.0.1:{port}" in str(refused.value) and refused.value.advice


def test_unresolvable_name_says_dns(hpc_settings: HpcSettings) -> None:
    with (
        SshPool(_with_profile(hpc_settings, hostname="no-such-host.invalid")) as pool,
        pytest.raises(SshFailure) as failed,
    ):
        pool.shell("local").run(["true"])
    assert failed.value.kind == "dns"


def test_unauthorised_key_says_auth(hpc_settings: HpcSettings, tmp_path: Path) -> None:
    stranger = tmp_path / "stranger_key"
    new_key_file(stranger)
    with (
        SshPool(_with_profile(hpc_settings, key_file=str(stranger))) as pool,
        pytest.raises(SshFailure) as refused,
    ):
        pool.shell("local").run(["true"])
    assert refused.value.kind == "auth"
    assert "authorized_keys" in refused.value.advice


def test_unknown_host_name_is_explained(ssh_pool: SshPool) -> None:
    with pytest.raises(SshFailure, match=r"no host profile or ~/\.ssh/config Host") as unknown:
        ssh_pool.shell("nowhere")
    assert "[[plugins.hpc.hosts]]" in unknown.value.advice


@pytest.fixture
def authorized(slurm_cluster: ClusterInfo) -> Iterator[Path]:
    """The rig's authorized_keys, put back as it was after the test adds a key to it."""
    path = Path(slurm_cluster.folder) / "ssh" / "authorized_keys"
    before = path.read_text()
    yield path
    path.write_text(before)


def test_passphrase_comes_from_the_keyring_and_is_written_nowhere(
    hpc_settings: HpcSettings,
    authorized: Path,
    tmp_path: Path,
    workbench_home: Path,
    user_home: Path,
    slurm_cluster: ClusterInfo,
) -> None:
    passphrase = "correct horse battery staple 42"
    key_file = tmp_path / "protected_key"
    key = new_key_file(key_file, passphrase)
    with authorized.open("a") as keys:
        keys.write(f"{key.get_name()} {key.get_base64()} protected\n")
    settings = _with_profile(hpc_settings, key_file=str(key_file))

    with SshPool(settings) as pool, pytest.raises(SshFailure) as locked:
        pool.shell("local").run(["true"])
    assert locked.value.kind == "auth" and passphrase_entry(str(key_file)) in locked.value.advice

    set_secret(passphrase_entry(str(key_file)), passphrase)
    with SshPool(settings) as pool:
        assert pool.shell("local").run(["printf", "in"]).stdout == "in"
        pool.shell("local").write_text(f"{settings.hosts[0].remote_root}/f.txt", "data")

    for folder in (tmp_path, workbench_home, user_home, Path(slurm_cluster.folder)):
        for path in folder.rglob("*"):
            if path.is_file():
                assert passphrase.encode() not in path.read_bytes(), path


def test_ssh_config_alias_resolves_like_openssh(
    slurm_cluster: ClusterInfo, tmp_path: Path, hpc_settings: HpcSettings
) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host rig\n"
        f"    HostName {slurm_cluster.host}\n"
        f"    Port {slurm_cluster.ssh_port}\n"
        f"    User {slurm_cluster.user}\n"
        f"    IdentityFile {slurm_cluster.key_file}\n"
        "Host through-rig\n"
        f"    HostName {slurm_cluster.host}\n"
        f"    Port {slurm_cluster.ssh_port}\n"
        "    ProxyJump rig\n"
        "Host *\n"
        f"    User {slurm_cluster.user}\n"
        f"    IdentityFile {slurm_cluster.key_file}\n"
        "    Port 1\n"
    )
    settings = HpcSettings(
        hosts=[HostProfile(name="mine", hostname="rig", remote_root="~/x")],
        ssh_config=str(config),
        known_hosts=hpc_settings.known_hosts,
    )
    rig = resolve_host("rig", settings)  # only in ~/.ssh/config
    assert (rig.hostname, rig.port, rig.user, rig.key_file) == (
        slurm_cluster.host,
        slurm_cluster.ssh_port,  # the first value wins, as in OpenSSH: not `Host *`'s
        slurm_cluster.user,
        slurm_cluster.key_file,
    )
    mine = resolve_host("mine", settings)  # a profile naming a config Host as its hostname
    assert (mine.hostname, mine.port, mine.remote_root) == (slurm_cluster.host, rig.port, "~/x")
    through = resolve_host("through-rig", settings)
    assert [hop.name for hop in jump_profiles(through, settings)] == ["rig"]

    with SshPool(settings) as pool:
        assert pool.shell("rig").run(["sinfo", "--version"]).ok
        assert pool.shell("mine").run(["true"]).ok
        jumped = pool.shell("through-rig").run(["printenv", "SSH_CONNECTION"])
        assert jumped.ok and jumped.stdout.startswith("127.0.0.1 ")  # from the jump host's sshd


def test_profile_fields_win_over_the_config(
    slurm_cluster: ClusterInfo, tmp_path: Path, hpc_settings: HpcSettings
) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(f"Host rig\n    HostName {slurm_cluster.host}\n    Port 1\n    User nobody\n")
    profile = HostProfile(
        name="rig",
        port=slurm_cluster.ssh_port,
        user=slurm_cluster.user,
        key_file=slurm_cluster.key_file,
    )
    settings = HpcSettings(
        hosts=[profile], ssh_config=str(config), known_hosts=hpc_settings.known_hosts
    )
    with SshPool(settings) as pool:
        assert pool.shell("rig").run(["true"]).ok
