#!/usr/bin/env bash
# Installs what a fresh Debian or Ubuntu machine lacks to build and run bevy_flock:
# the clang + mold linker pair named in .cargo/config.toml, the system libraries Bevy's
# windowing, input and audio crates link against, and Xvfb with Mesa's software Vulkan
# so the examples also run on a machine without a display or GPU.
# Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
    clang mold pkg-config
    libasound2-dev libudev-dev libwayland-dev libxkbcommon-dev
    libvulkan1 mesa-vulkan-drivers xvfb xauth
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done

if ((${#missing[@]})); then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
    echo "setup: cargo not found; install Rust 1.97.1 or newer from https://rustup.rs" >&2
    exit 1
fi
# Says which toolchain is missing when neither the default nor an installed nightly can build
# Bevy 0.20; prints the cargo it will use otherwise.
"$(dirname "$0")/cargo" --version
