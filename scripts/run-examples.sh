#!/usr/bin/env bash
# Builds every example and runs each for real under a virtual display (Xvfb, Mesa's software
# Vulkan): each must start, render FRAMES frames (default 120), save a screenshot of its window
# and exit cleanly. Screenshots go to the directory given as the first argument (default
# target/screenshots); the README's pictures are taken this way.
#
# Usage: scripts/run-examples.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_flock-target}"
out="${1:-target/screenshots}"
frames="${FRAMES:-120}"
# A blank or black window compresses to a few kilobytes; a rendered scene to far more.
smallest_png=20000

# Assets (presets) are found under the repository root, not next to the binary.
export BEVY_ASSET_ROOT="$PWD"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
scripts/cargo build --features examples --examples --locked

# An example is a file, or a folder with a main.rs (examples/support/ is neither).
for source in examples/*.rs examples/*/main.rs; do
    name="$(basename "$source" .rs)"
    if [[ "$name" == main ]]; then
        name="$(basename "$(dirname "$source")")"
    fi
    shot="$out/$name.png"
    rm -f "$shot"
    echo "run-examples: $name for $frames frames"
    log="$out/$name.log"
    status=0
    # birds_3d's lit scene takes about 1.8 s a frame on Mesa's software Vulkan (212 s for 120
    # frames on an idle two-core machine), and a busy machine can double that.
    BEVY_FLOCK_CAPTURE="$frames:$shot" timeout 600 \
        xvfb-run -a -s "-screen 0 1280x720x24" "$CARGO_TARGET_DIR/debug/examples/$name" \
        >"$log" 2>&1 || status=$?
    grep -E "ERROR|WARN.*bevy_flock|panicked|captured" "$log" || true
    if ((status != 0)); then
        echo "run-examples: $name exited with status $status; its log is $log" >&2
        exit 1
    fi
    # Errors from the crate or the example itself (a preset that did not load, say) fail too.
    if grep -E "ERROR.*(bevy_flock|$name)" "$log" >/dev/null; then
        echo "run-examples: $name logged errors; its log is $log" >&2
        exit 1
    fi
    size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
    if ((size < smallest_png)); then
        echo "run-examples: $name saved no screenshot, or a blank one ($size bytes)" >&2
        exit 1
    fi
    echo "run-examples: $name rendered; $shot is $size bytes"
done
