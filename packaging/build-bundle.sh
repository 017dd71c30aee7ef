#!/usr/bin/env bash
# Build the desktop bundle with PyInstaller: dist/workbench/ holds the `workbench` program and
# everything it runs on, Python included (copy the folder to a machine without Python and run
# dist/workbench/workbench). Needs the dev install (bootstrap.sh --dev: pyinstaller, the GUI extra).
#   bash packaging/build-bundle.sh [--clean]   (--clean: forget PyInstaller's cache first)
# Intermediate files go to build/bundle/ (git-ignored). WORKBENCH_BUNDLE_DIST and
# WORKBENCH_BUNDLE_WORK choose other folders. Check the result with packaging/check-bundle.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
dist="${WORKBENCH_BUNDLE_DIST:-$root/dist}"
work="${WORKBENCH_BUNDLE_WORK:-$root/build/bundle}"
mkdir -p "$dist" "$work"
dist="$(cd "$dist" && pwd)"  # absolute: PyInstaller runs from the work folder
work="$(cd "$work" && pwd)"
export WORKBENCH_BUNDLE_WORK="$work"
clean=()
[ "${1:-}" = "--clean" ] && clean=(--clean)

if ! "$python" -c 'import PyInstaller' 2>/dev/null; then
    echo "build-bundle: PyInstaller is missing in $python;" \
        "run bash packaging/bootstrap.sh --dev" >&2
    exit 2
fi
# from the work folder: in the checkout, workbench.egg-info (left by the editable install) would
# shadow the installed metadata the venv itself reads
cd "$work"
started=$(date +%s)
"$python" -m PyInstaller --noconfirm "${clean[@]}" --log-level WARN \
    --distpath "$dist" --workpath "$work" "$root/packaging/workbench.spec"
seconds=$(( $(date +%s) - started ))
size="$(du -sh "$dist/workbench" | cut -f1)"
echo "build-bundle: $dist/workbench built in ${seconds} s, ${size}" >&2
