#!/usr/bin/env bash
# Put Workbench in the desktop's application menu, for the current user only: the desktop entry
# and the icon go under ${XDG_DATA_HOME:-~/.local/share} (applications/, icons/hicolor/).
#   bash packaging/install-desktop-entry.sh [PROGRAM]   install; PROGRAM is the workbench to start
#       (default: the bundle dist/workbench/workbench if it is built, else .venv/bin/workbench)
#   bash packaging/install-desktop-entry.sh --remove    take both out again
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
entry="$data/applications/workbench.desktop"
icons="$data/icons/hicolor"

refresh() {  # the menu and the icon cache see the change at once where their tools exist
    if command -v update-desktop-database >/dev/null; then
        update-desktop-database -q "$data/applications" || true
    fi
    if command -v gtk-update-icon-cache >/dev/null && [ -f "$icons/index.theme" ]; then
        gtk-update-icon-cache -q -t "$icons" || true
    fi
}

if [ "${1:-}" = "--remove" ]; then
    rm -f "$entry" "$icons/256x256/apps/workbench.png" "$icons/scalable/apps/workbench.svg"
    refresh
    echo "install-desktop-entry: removed $entry and its icons" >&2
    exit 0
fi

program="${1:-}"
if [ -z "$program" ]; then
    for candidate in "$root/dist/workbench/workbench" "$root/.venv/bin/workbench"; do
        if [ -x "$candidate" ]; then program="$candidate"; break; fi
    done
fi
if [ -z "$program" ]; then
    echo "install-desktop-entry: no workbench to start: build the bundle" \
        "(bash packaging/build-bundle.sh), run bash packaging/bootstrap.sh, or name the program" >&2
    exit 2
fi
if [ ! -x "$program" ] || [ -d "$program" ]; then
    echo "install-desktop-entry: $program is not an executable program" >&2
    exit 2
fi
program="$(cd "$(dirname "$program")" && pwd)/$(basename "$program")"  # the menu needs a full path
case "$program" in
    *[\"\`\$\\]*)
        echo "install-desktop-entry: the path $program has a character desktop entries cannot" \
            "hold (\" \` \$ \\); move Workbench to a plain folder" >&2
        exit 2 ;;
esac
quoted="$program"
case "$program" in *[[:space:]]*) quoted="\"$program\"" ;; esac

install -D -m 644 "$root/resources/icons/workbench-256.png" "$icons/256x256/apps/workbench.png"
install -D -m 644 "$root/resources/icons/workbench.svg" "$icons/scalable/apps/workbench.svg"
mkdir -p "$(dirname "$entry")"
# sed's replacement: escape what sed treats specially (&, \ and the | delimiter)
escaped=$(printf '%s' "$quoted" | sed 's/[&|\\]/\\&/g')
sed -e "s|^Exec=.*|Exec=$escaped|" -e "s|^TryExec=.*|TryExec=$(printf '%s' "$program" \
    | sed 's/[&|\\]/\\&/g')|" "$root/packaging/workbench.desktop" > "$entry.tmp"
chmod 644 "$entry.tmp"
mv "$entry.tmp" "$entry"
refresh
echo "install-desktop-entry: $entry starts $program" >&2
