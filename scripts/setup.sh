#!/bin/sh
# Installs the system packages swift-motion needs to build, on Debian, Ubuntu or Raspberry Pi OS:
# libi2c-dev (the I2C library and its header), libmosquitto-dev (Eclipse Mosquitto's MQTT
# client library, for `motionctl publish` and the MotionPublish product) and cyclonedds-dev
# (Eclipse Cyclone DDS, for `motionctl ros2` and the MotionROS product); as root directly,
# otherwise through sudo. Does nothing when all are already installed. The broker itself
# (`mosquitto`) and the ROS 2 test peer are not needed to build: the tests that need them skip without them.
set -eu
packages="libi2c-dev libmosquitto-dev cyclonedds-dev"
missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "scripts/setup.sh:$missing missing; install as root: apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
$as_root apt-get update -qq
# shellcheck disable=SC2086 # one word a package
$as_root apt-get install -y -qq $missing
