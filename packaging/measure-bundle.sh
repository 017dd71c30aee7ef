#!/usr/bin/env bash
# The bundle's size and start times against the venv's, measured in the same run: each command
# runs RUNS times, bundle and venv alternating (so a busy machine slows both alike), in the same
# empty environment (env -i, fresh HOME and WORKBENCH_HOME); prints the median wall time.
#   bash packaging/measure-bundle.sh [RUNS]   (default 5; build the bundle first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-5}"
bundle="${WORKBENCH_BUNDLE_DIST:-$root/dist}/workbench/workbench"
venv="$root/.venv/bin/workbench"
for program in "$bundle" "$venv"; do
    if [ ! -x "$program" ]; then
        echo "measure-bundle: $program is missing (build-bundle.sh / bootstrap.sh --dev)" >&2
        exit 2
    fi
done
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

seconds() {  # seconds PROGRAM ARGS...: the wall time of one run, in an empty environment
    local home; home="$(mktemp -d -p "$scratch")"
    local started; started=$(date +%s.%N)
    env -i "HOME=$home" "PATH=/usr/bin:/bin" "WORKBENCH_HOME=$home/workbench" "LANG=C.UTF-8" \
        "$@" >/dev/null 2>&1 || true  # doctor exits 1 without a keyring: its time still counts
    awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", e - s }'
}

median() {
    sort -n | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "| command | bundle (s) | venv (s) |"
echo "| --- | --- | --- |"
for command in "tool --list" "doctor"; do
    : >"$scratch/bundle.times"
    : >"$scratch/venv.times"
    for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086  # the command is two words on purpose
        seconds "$bundle" --headless $command >>"$scratch/bundle.times"
        # shellcheck disable=SC2086
        seconds "$venv" --headless $command >>"$scratch/venv.times"
    done
    echo "| \`--headless $command\` | $(median <"$scratch/bundle.times") |" \
        "$(median <"$scratch/venv.times") |"
done
echo
echo "bundle: $(du -sh "$(dirname "$bundle")" | cut -f1) in $(dirname "$bundle");" \
    "median of $runs runs each, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
