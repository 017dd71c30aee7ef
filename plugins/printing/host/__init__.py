"""The printer host: the one long-lived process that owns the USB ports.

A USB print lives as long as the process holding its port, so prints run in a host
(`workbench --headless serve`, or the desktop app when no other host runs) and every other process
(a CLI tool call, the agent, another window) talks to it over a private Unix socket.

protocol.py  the socket's place and its JSON-lines messages;  server.py serves them
client.py    the other side;  ops.py what each request does to the printers
(../services.py is the host as a service that `serve` and the desktop app start.)
"""
