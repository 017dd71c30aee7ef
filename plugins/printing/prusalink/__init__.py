"""Printing over the network with PrusaLink's HTTP API v1 (PrusaLink on a Pi, MINI/MK4/XL firmware).

client.py   the HTTP client: API key or digest, retries, the storage the printer reports, uploads
access.py   a client for a printer profile with its secret from the keyring
control.py  status, print, pause/resume/cancel with the state the printer confirmed
"""
