#!/usr/bin/env bash
# Check the built bundle as it runs on a machine without Python: an empty environment (env -i,
# PATH=/usr/bin:/bin, a fresh HOME and WORKBENCH_HOME) and, when this shell may (root, unshare),
# every Python on this machine hidden (the venv, the Python it was made from, /usr/lib/python3*,
# /usr/bin/python*). Secrets go to a real Secret Service keyring (gnome-keyring in a private D-Bus
# session), as on a desktop. The checks:
#   1. `--headless tool --list` lists the tools of every built-in plugin;
#   2. `--headless doctor` exits 0, its python line is the bundle's program, no plugin failed;
#   3. optimize_design runs (EngiBench in a job worker: the bundle started again by
#      multiprocessing) and `modelica validate` holds (rumoca, the bundled task packages);
#   4. the window opens (Qt offscreen) and saves a screenshot.
# With --compare PROGRAM (e.g. .venv/bin/workbench) the bundle must also list the same tools and
# be as healthy, check by check, as PROGRAM in the same environment (a "missing" in the bundle
# where PROGRAM has "ok" is a bundling mistake), except the checks named in ALLOWED_WORSE
# (checked after 2).
#   bash packaging/check-bundle.sh [BUNDLE_DIR] [--compare PROGRAM] [--out DIR]
# Exit 0: all held; 1: a check failed (the message says which and why); 2: nothing to check.
# Under WORKBENCH_CI=1 a missing rig (unshare, gnome-keyring, dbus-run-session) is a failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$root/dist/workbench"
compare=""
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --compare) compare="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) bundle="$1"; shift ;;
    esac
done
bundle="$(cd "$bundle" 2>/dev/null && pwd || echo "$bundle")"
program="$bundle/workbench"
# one tool of every built-in plugin: a plugin that did not load is missing its tool
EXPECTED_TOOLS="workspace_info optimize_design slice_model simulate submit_slurm_job
search_documents execute_cli_command search_arxiv grade_solution"
# checks the bundle may pass worse than the venv, on purpose (packaging/bundle_contents.py)
ALLOWED_WORSE="|document dense search|"  # offline MiniLM needs PyTorch, which the bundle leaves out
in_ci() { [ -n "${WORKBENCH_CI:-}" ] && [ "${WORKBENCH_CI}" != "0" ]; }

fail() { echo "check-bundle: FAILED: $*" >&2; exit 1; }
missing_rig() {  # missing_rig NAME WHY: a failure in CI, a note elsewhere
    if in_ci; then fail "rig '$1' is missing and WORKBENCH_CI=1 does not allow that: $2"; fi
    echo "check-bundle: note: $1 is missing ($2); checking without it" >&2
}

if [ ! -x "$program" ]; then
    echo "check-bundle: no bundle at $bundle; build it with bash packaging/build-bundle.sh" >&2
    exit 2
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
out="${out:-$scratch/out}"
mkdir -p "$out" "$scratch/home" "$scratch/workbench"
mkdir -m 700 "$scratch/run"

# -- the clean environment ---------------------------------------------------------------------
clean_env=(env -i "HOME=$scratch/home" "PATH=/usr/bin:/bin" "WORKBENCH_HOME=$scratch/workbench"
    "LANG=C.UTF-8" "XDG_RUNTIME_DIR=$scratch/run" "QT_QPA_PLATFORM=offscreen")

# A private session bus with an unlocked keyring in the scratch HOME around each command. The
# daemon runs in the foreground so that it ends with the command (daemonised, it would outlive
# the bus), and the command starts once the keyring owns its bus name (else D-Bus would start a
# second, locked one).
keyring_session='
printf %s check-bundle | gnome-keyring-daemon --foreground --unlock --components=secrets \
    >/dev/null 2>&1 &
daemon=$!
tries=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
        | grep -q "boolean true"; do
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || break
    sleep 0.05
done
code=0
"$@" || code=$?
kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null
exit "$code"'
keyring=()
if command -v dbus-run-session >/dev/null && command -v dbus-send >/dev/null \
    && command -v gnome-keyring-daemon >/dev/null; then
    keyring=(dbus-run-session -- sh -c "$keyring_session" keyring)
else
    missing_rig "gnome-keyring" \
        "apt-get install gnome-keyring dbus-daemon dbus-bin (doctor's keyring line fails)"
fi

python_places() {  # every Python this machine has: folders, then programs
    local venv_home=""
    if [ -f "$root/.venv/pyvenv.cfg" ]; then
        venv_home="$(sed -n 's/^home *= *//p' "$root/.venv/pyvenv.cfg")"
        echo "$root/.venv"
        [ -n "$venv_home" ] && dirname "$venv_home"
    fi
    ls -d /usr/lib/python3* /usr/local/lib/python3* 2>/dev/null || true
    ls /usr/bin/python* /usr/local/bin/python* 2>/dev/null || true
}

hide=()
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
    script=""
    while read -r place; do
        case "$bundle/" in "$place"/*) continue ;; esac  # never hide the bundle itself
        if [ -d "$place" ]; then script+="mount -t tmpfs -o size=1m none '$place' && "
        elif [ -e "$place" ]; then script+="mount --bind /dev/null '$place' && "
        fi
    done < <(python_places | sort -u)
    hide=(unshare --mount --propagation private sh -c "${script}exec \"\$@\"" hide)
else
    missing_rig "unshare" "run as root where mount namespaces are allowed to hide every Python"
fi

run_bundle() {  # run_bundle NAME ARGS...: stdout to $out/NAME.txt, stderr to $out/NAME.err
    local name="$1"; shift
    local started; started=$(date +%s.%N)
    local code=0
    "${hide[@]}" "${clean_env[@]}" "${keyring[@]}" "$@" >"$out/$name.txt" 2>"$out/$name.err" \
        || code=$?
    awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }' >"$out/$name.time"
    return $code
}

# -- 0. no Python to lean on ----------------------------------------------------------------------
if [ ${#hide[@]} -gt 0 ]; then
    for python in python3 python "$root/.venv/bin/python"; do
        if run_bundle "python-probe" sh -c "$python -c pass" 2>/dev/null; then
            fail "$python still runs inside the check's environment: Python is not hidden"
        fi
    done
fi

# -- 1. tool --list ------------------------------------------------------------------------------
run_bundle tools "$program" --headless tool --list \
    || fail "\`workbench --headless tool --list\` exited with an error: $(tail -5 "$out/tools.err")"
tool_names() { { grep -o '^    "name": "[^"]*"' "$1" || true; } | sed 's/.*: "//; s/"$//' | sort; }
tool_names "$out/tools.txt" >"$out/tool-names.txt"
for tool in $EXPECTED_TOOLS; do
    grep -qx "$tool" "$out/tool-names.txt" \
        || fail "the bundle does not offer $tool (its plugin did not load or was not bundled); \
tools: $(tr '\n' ' ' <"$out/tool-names.txt")"
done

# -- 2. doctor -----------------------------------------------------------------------------------
doctor_code=0
run_bundle doctor "$program" --headless doctor || doctor_code=$?
doctor="$out/doctor.txt"
grep -q "^\[     ok\] python: .* at $program\$" "$doctor" \
    || fail "doctor's python line is not the bundle's program $program: \
$(grep '] python:' "$doctor" || echo 'no python line')"
plugin_failures="$(grep '^\[   fail\] plugin ' "$doctor" || true)"
[ -z "$plugin_failures" ] || fail "a plugin failed in the bundle (a module not bundled?):
$plugin_failures"
grep -q '^\[     ok\] plugins: loaded: ' "$doctor" || fail "doctor names no loaded plugins"
if [ "$doctor_code" -ne 0 ]; then
    failing="$(grep '^\[   fail\]' "$doctor" || true)"
    if [ ${#keyring[@]} -gt 0 ] || [ "$(echo "$failing" | grep -vc '\] keyring:')" -ne 0 ]; then
        fail "doctor exited $doctor_code; failing checks:
$failing"
    fi
    echo "check-bundle: note: doctor's only failure is the keyring (no gnome-keyring here)" >&2
fi

# -- 2b. as healthy as the venv, check by check ----------------------------------------------
if [ -n "$compare" ]; then
    compare_env=("${clean_env[@]}" "PATH=$(dirname "$compare"):/usr/bin:/bin"
        "WORKBENCH_HOME=$scratch/compare-workbench")
    "${compare_env[@]}" "${keyring[@]}" "$compare" --headless tool --list \
        >"$out/compare-tools.txt" 2>"$out/compare-tools.err" || fail "$compare tool --list failed"
    tool_names "$out/compare-tools.txt" >"$out/compare-tool-names.txt"
    if ! diff "$out/compare-tool-names.txt" "$out/tool-names.txt" >"$out/tools.diff"; then
        fail "the bundle's tools differ from $compare's (< only there, > only in the bundle):
$(cat "$out/tools.diff")"
    fi
    "${compare_env[@]}" "${keyring[@]}" "$compare" --headless doctor \
        >"$out/compare-doctor.txt" 2>"$out/compare-doctor.err" || true
    grep -q '\] plugins: loaded: ' "$out/compare-doctor.txt" \
        || fail "$compare doctor printed no checks to compare with:" \
            "$(tail -3 "$out/compare-doctor.err")"
    levels() {  # "name<TAB>level<TAB>line" of each doctor line
        sed -n 's/^\[ *\([a-z]*\)\] \([^:]*\):.*$/\2\t\1\t&/p' "$1"
    }
    worse="$(levels "$out/compare-doctor.txt" | awk -F '\t' -v allowed="$ALLOWED_WORSE" '
        function rank(level) {
            return level == "ok" ? 3 : level == "warn" ? 2 : level == "missing" ? 1 : 0
        }
        FNR == NR { venv[$1] = $2; next }
        ($1 in venv) && rank($2) < rank(venv[$1]) && index(allowed, "|" $1 "|") == 0 {
            print "  " $1 ": " venv[$1] " with the venv, " $2 " in the bundle: " $3
        }' - <(levels "$doctor"))"
    [ -z "$worse" ] || fail "the bundle is less healthy than $compare:
$worse"
fi

# -- 3. work in a job worker (the bundle started again by multiprocessing), bundled data ------
run_bundle optimize "$program" --headless tool optimize_design \
    '{"problem_config": {"max_iter": 3}}' \
    || fail "optimize_design failed in the bundle (EngiBench, or the job worker process): \
$(grep -m3 '"message"\|"error"' "$out/optimize.txt") $(tail -3 "$out/optimize.err")"
run_bundle modelica "$program" --headless modelica validate --backend rumoca \
    || fail "the Modelica task packages do not validate in the bundle (rumoca, or \
benchmarks/modelica not bundled): $(tail -3 "$out/modelica.txt") $(tail -3 "$out/modelica.err")"

# -- 4. the window ---------------------------------------------------------------------------------
run_bundle window "$program" --screenshot "$out/window.png" \
    || fail "the window did not open: $(tail -5 "$out/window.err")"
[ "$(head -c 4 "$out/window.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] \
    || fail "the window opened but saved no PNG screenshot at $out/window.png"

echo "check-bundle: ok: $(wc -l <"$out/tool-names.txt") tools listed in" \
    "$(cat "$out/tools.time") s," \
    "doctor exit $doctor_code in $(cat "$out/doctor.time") s, optimize_design in" \
    "$(cat "$out/optimize.time") s, modelica validate in $(cat "$out/modelica.time") s," \
    "window in $(cat "$out/window.time") s" \
    "(outputs in $out)" >&2
