#!/usr/bin/env bash
# Test rigs written by others, each in a venv of its own under .rigs/ (their pins clash with ours
# and with each other: PrusaLink 0.8.1 needs pydantic 1). The tests start them as processes.
#   .rigs/prusalink   the real PrusaLink 0.8.1 (Raspberry Pi build for the MK3 family)
#   .rigs/octoprint   OctoPrint 1.11.8, for its virtual printer (a Marlin simulation)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}

rig() {  # rig NAME PACKAGE==VERSION: install once; a second run only checks
    local folder=".rigs/$1"
    if [ -x "$folder/bin/python" ] && "$folder/bin/python" -m pip show -q "${2%%==*}" >/dev/null 2>&1; then
        return
    fi
    rm -rf "$folder"
    "$python" -m venv "$folder"
    "$folder/bin/python" -m pip install -q --upgrade pip
    "$folder/bin/python" -m pip install -q "$2"
    echo "rig-venvs: $1 ready ($2)" >&2
}

rig prusalink prusalink==0.8.1
rig octoprint octoprint==1.11.8
