#!/usr/bin/env bash
# Install the Debian packages listed in the given files when missing.
# Usage: scripts/ensure-debs.sh deps/debian-main.txt [more.txt ...]
set -euo pipefail
want=$(grep -hvE '^\s*(#|$)' "$@" | tr '\n' ' ')
missing=()
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "blkscope: missing Debian packages: ${missing[*]}" >&2
  echo "blkscope: run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "blkscope: installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "blkscope: apt-get update failed" >&2; exit 1; }
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
