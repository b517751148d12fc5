#!/usr/bin/env bash
# Runs an example in a window; without a display (a server, CI) it runs under Xvfb with
# Mesa's software Vulkan. Usage: scripts/run-example.sh NAME [cargo args...]
set -euo pipefail
cargo="$(dirname "$0")/cargo"
name="${1:-minimal}"
shift || true
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
    exec "$cargo" run --features examples --example "$name" "$@"
fi
exec xvfb-run -a -s "-screen 0 1280x720x24" "$cargo" run --features examples --example "$name" "$@"
