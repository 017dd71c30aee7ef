"""SSH to the clusters (paramiko): one connection per host for commands and SFTP.

errors.py      SshFailure (kind + advice), UnknownHostKey, HostKeyChanged
profiles.py    resolve_host: a host profile merged with ~/.ssh/config, jump-host chains
host_keys.py   known_hosts checks (RejectPolicy unless a person confirms), SHA256 fingerprints
connect.py     one login (through jump hosts), keys and passwords from the keyring
connection.py  SshShell, the RemoteShell of one host: commands as argv, files, reconnects
transfer.py    SFTP reads of growing logs, atomic writes, folder copies
pool.py        SshPool: the shells of the app's hosts
"""
