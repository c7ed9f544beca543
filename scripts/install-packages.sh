#!/usr/bin/env bash
# Install the Debian 12 packages handover and its tests need
# (scripts/packages.txt), as root directly or through sudo otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
as_root=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install-packages: not root and no sudo: run this as root" >&2; exit 1; }
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends $(grep -v '^#' "$top/scripts/packages.txt")
