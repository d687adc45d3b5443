#!/bin/sh
# Installs the one system package swift-motion needs, libi2c-dev (the I2C library and its
# header), on Debian, Ubuntu or Raspberry Pi OS: as root directly, otherwise through sudo.
# Does nothing when it is already installed.
set -eu
if dpkg-query -W -f='${Status}' libi2c-dev 2>/dev/null | grep -q 'install ok installed'; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "scripts/setup.sh: libi2c-dev is missing; install it as root: apt-get update && apt-get install -y libi2c-dev" >&2
    exit 1
fi
$as_root apt-get update -qq
$as_root apt-get install -y -qq libi2c-dev
