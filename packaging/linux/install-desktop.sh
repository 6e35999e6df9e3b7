#!/bin/sh
# Add Hermes Memory Studio to the desktop's application menu for this user, or remove it.
#
#   ./install-desktop.sh install [BUNDLE]   copy the bundle (default: the folder holding this
#                                           script) to $XDG_DATA_HOME/hermes-studio/app and
#                                           add the menu entry and icons pointing at it
#   ./install-desktop.sh uninstall          remove the entry, the icons and that copy
#
# $XDG_DATA_HOME defaults to ~/.local/share. Your data (the demo home's copy, next to app/)
# is left alone. Run from the unpacked bundle, or through `make install-desktop`.
set -eu

bundle=$(cd "${2:-$(dirname "$0")}" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
app="$data/hermes-studio/app"
entry="$data/applications/hermes-studio.desktop"
icons="$data/icons/hicolor"

refresh_caches() {
  # Menus pick changes up by themselves on most desktops; these just make it immediate.
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$data/applications" 2>/dev/null || true
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$icons/index.theme" ]; then
    gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true
  fi
}

install_entry() {
  [ -x "$bundle/hermes-studio" ] || { echo "install-desktop: no hermes-studio in $bundle" >&2; exit 1; }
  if [ "$bundle" != "$app" ]; then
    # Copy beside the old install, then swap, so an interrupted copy never replaces it.
    mkdir -p "$data/hermes-studio"
    rm -rf "$app.new" "$app.old"
    cp -R "$bundle" "$app.new"
    [ ! -d "$app" ] || mv "$app" "$app.old"
    mv "$app.new" "$app"
    rm -rf "$app.old"
  fi
  (cd "$app/share/icons/hicolor" && find . -name 'hermes-studio.*' -type f) | while read -r icon; do
    mkdir -p "$icons/$(dirname "$icon")"
    cp "$app/share/icons/hicolor/$icon" "$icons/$icon"
  done
  mkdir -p "$data/applications"
  sed "s|@APP@|$app|g" "$app/share/applications/hermes-studio.desktop" > "$entry.tmp"
  mv "$entry.tmp" "$entry"
  refresh_caches
  echo "Installed: $entry (runs $app/hermes-studio)"
}

uninstall_entry() {
  rm -f "$entry"
  find "$icons" -path '*/apps/hermes-studio.*' -type f -exec rm -f {} + 2>/dev/null || true
  rm -rf "$app" "$app.new" "$app.old"
  refresh_caches
  echo "Removed the Hermes Memory Studio menu entry, icons and $app"
}

case "${1:-}" in
  install) install_entry ;;
  uninstall) uninstall_entry ;;
  *) echo "usage: $0 install|uninstall" >&2; exit 2 ;;
esac
