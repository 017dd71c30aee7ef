"""Files over one SFTP session: partial reads of growing logs, whole writes, folder copies.

Paths here are absolute or relative to the remote home (SshShell has expanded `~`). Writes go to
a temporary name first and are renamed over the target, so a job never reads half a script.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import stat
import uuid
from pathlib import Path

import paramiko

CHUNK = 1 << 20


def file_error(error: OSError, host: str) -> OSError:
    """The SFTP error with the host in its message (the same kind: FileNotFoundError, ...)."""
    where = f"{host}:{error.filename}" if error.filename else host
    detail = error.strerror or str(error)
    if error.errno == errno.ENOENT:
        return FileNotFoundError(errno.ENOENT, f"no such remote file or folder ({where}): {detail}")
    if error.errno == errno.EACCES:
        return PermissionError(errno.EACCES, f"not allowed on {where}: {detail}")
    return OSError(error.errno, f"remote file operation failed on {where}: {detail}")


def _named(error: OSError, path: str) -> OSError:
    if not error.filename:
        error.filename = path
    return error


def read_text(sftp: paramiko.SFTPClient, path: str, offset: int, limit: int) -> str:
    """At most `limit` bytes from byte `offset`; a multi-byte character cut at the end is left
    for the next read, so len(text.encode()) is the number of bytes consumed."""
    try:
        with sftp.open(path, "rb") as handle:
            size = handle.stat().st_size
            if offset >= size or limit <= 0:
                return ""
            handle.seek(offset)
            data = handle.read(min(limit, size - offset))
    except OSError as error:
        raise _named(error, path) from None
    return _complete_utf8(data).decode("utf-8", errors="replace")


def _complete_utf8(data: bytes) -> bytes:
    """`data` without a trailing, incomplete UTF-8 sequence."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data  # ASCII: nothing cut
        if byte >= 0xC0:  # a lead byte: how long its sequence should be
            length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= length else data[:-back]
    return data


def makedirs(sftp: paramiko.SFTPClient, folder: str) -> None:
    """`mkdir -p` over SFTP."""
    if folder in ("", "/", "."):
        return
    try:
        if stat.S_ISDIR(sftp.stat(folder).st_mode or 0):
            return
    except FileNotFoundError:
        pass
    makedirs(sftp, posixpath.dirname(folder.rstrip("/")))
    try:
        sftp.mkdir(folder)
    except OSError as error:  # made meanwhile by someone else is fine
        if not stat.S_ISDIR(sftp.stat(folder).st_mode or 0):
            raise _named(error, folder) from None


def write_bytes(sftp: paramiko.SFTPClient, path: str, data: bytes, mode: int) -> None:
    makedirs(sftp, posixpath.dirname(path))
    partial = f"{path}.{uuid.uuid4().hex[:8]}.part"
    try:
        with sftp.open(partial, "wb") as handle:
            handle.set_pipelined(True)
            handle.write(data)
        sftp.chmod(partial, mode)
        sftp.posix_rename(partial, path)
    except OSError as error:
        with contextlib.suppress(OSError):  # it may not exist; the first error is the one
            sftp.remove(partial)
        raise _named(error, path) from None


def download(sftp: paramiko.SFTPClient, remote: str, local: Path) -> Path:
    """A remote file or folder (recursively) copied to `local`."""
    try:
        attributes = sftp.stat(remote)
    except OSError as error:
        raise _named(error, remote) from None
    if stat.S_ISDIR(attributes.st_mode or 0):
        local.mkdir(parents=True, exist_ok=True)
        for entry in sftp.listdir_attr(remote):
            if not _plain_name(entry.filename):  # a server's "../x" must not write outside
                raise OSError(errno.EINVAL, f"refused the remote name {entry.filename!r}", remote)
            download(sftp, posixpath.join(remote, entry.filename), local / entry.filename)
        return local
    local.parent.mkdir(parents=True, exist_ok=True)
    sftp.get(remote, str(local))
    return local


def _plain_name(name: str) -> bool:
    """One path component: not empty, '.' or '..', and without a separator or NUL."""
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0")


def upload(sftp: paramiko.SFTPClient, local: Path, remote: str) -> None:
    """A local file or folder (recursively) copied to `remote`, its parents created."""
    if local.is_dir():
        makedirs(sftp, remote)
        for child in sorted(local.iterdir()):
            upload(sftp, child, posixpath.join(remote, child.name))
        return
    makedirs(sftp, posixpath.dirname(remote))
    sftp.put(str(local), remote)
    sftp.chmod(remote, stat.S_IMODE(local.stat().st_mode))
