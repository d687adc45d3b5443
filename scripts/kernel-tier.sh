#!/usr/bin/env bash
# Kernel tier: runs the Linux I2C bus against a real kernel I2C stack.
#
# Boots Debian's own kernel in QEMU (TCG) with an initramfs holding busybox, the kernel's
# i2c-dev and i2c-stub modules and a Swift check binary (statically linked, or with its shared libraries)
# (Sources/i2c-kernel-check), which exercises /dev/i2c-0 and prints one line per check and
# `N passed, N failed`. Fails on any failed check, a missing summary, or a timeout.
#
# i2c-stub answers at $stub_chips (below). The check binary first tests the bus itself, then
# writes register images of an MPU-6050 (0x68), an ICM-20948 (0x69), an LSM6DSOX (0x6A), an LSM9DS1
# (0x6B), a LIS3MDL (0x1C) and a BNO055 (0x28) through
# /dev/i2c-0 and runs the real drivers on them: probe, configuration registers, decoded samples
# (the BNO055's in one 32-byte read, the SMBus I2C-block limit), and the no-acknowledge error at an
# absent address (Sources/i2c-kernel-check/ChipChecks.swift). Then an MPU-9150 takes 0x69 with its
# AK8975 at 0x0C (MPU9150Checks.swift): configuration (the I2C bypass on), the AK8975's fuse-ROM
# adjustment and one decoded sample. i2c-stub answers at 0x0C whether the bypass is on or not, so
# there the probe rightly names an MPU-6050 beside a separate magnetometer.
#
# i2c-stub answers SMBus only. So that the plain-I2C path (I2C_RDWR: several messages with repeated
# starts in one transfer) runs against a kernel adapter too, the test-only module in
# scripts/i2c-regfile is built against Debian's linux-headers package for the same kernel and
# loaded with the chip addresses of ChipChecks.swift and MPU9150Checks.swift; it acknowledges 0x0C
# only while the MPU at 0x69 has its bypass on ($regfile_bypass), as the MPU-9150 does, so there
# the probe names the MPU-9150. The check binary runs its I2C_RDWR checks and the same chip checks
# through it (Sources/i2c-kernel-check/PlainI2CChecks.swift).
#
# Then the kernel's own IIO drivers take over the stub's register images (KernelIIOChecks.swift):
# inv_mpu6050 (0x68), st_lsm6dsx (0x6A), bmi160 (0x69) and mma8452 (0x1D) are instantiated through
# new_device; the check binary reports which probes survive a stub whose reset bits never clear
# (and the kernel's log line for those that do not), checks that our I2C access to a held
# address fails busy, that the raw counts and values agree with our driver's, and that our IIO
# source (MotionSource.iio) delivers the kernel driver's samples, and reports the driver's
# removal (delete_device) once and resumes when it is back (new_device). The driver modules and their
# dependency closure (industrialio, kfifo_buf, industrialio-triggered-buffer, i2c-mux, …) come
# from the same kernel package: depmod writes its modules.dep, which lists each module's
# dependencies (most dependent first), loaded here in reverse.
#
# Last the kernel's barometer drivers (PressureChecks.swift): bmp280 (a BMP280 image at 0x76),
# st_pressure (an LPS25H at 0x5C) and dps310 (a DPS310 at 0x76 once the bmp280 client is
# deleted) each read an image our driver read first, and both pressures must agree; then adxl345
# (ADXL345Checks.swift: an ADXL345 image at 0x1D once the MMA8452Q client there is deleted) the same
# with its accelerations. On the plain-I2C adapter, bmc150_magn reads a BMM150 image at 0x10 that
# our driver read first, and both compensated fields must be equal (BMM150Checks.swift). The
# BMI270's kernel driver (drivers/iio/imu/bmi270) is newer than Debian's 6.1 kernel: no BMI270 check here.
#
# Needs: swift, qemu-system-x86 (qemu-system-x86_64), busybox-static, cpio, apt-get, dpkg-deb,
# depmod (kmod), make, and linux-headers-<the kernel's version> (installed here when run as root).
# The kernel package is downloaded and unpacked into a temporary directory, never installed.
# KVM is not used (it hangs on some CI hosts); TCG is slower but dependable.
set -euo pipefail
cd "$(dirname "$0")/.."

boot_timeout=${KERNEL_TIER_TIMEOUT:-240}   # seconds for the whole VM run
min_checks=80
# AK8975, LIS3MDL, MMA8452Q then ADXL345, BNO055, LPS25H, MPU-6050, ICM-20948/MPU-9150/BMI160, LSM6DSOX, LSM9DS1,
# BMP280 then DPS310 images (ChipChecks.swift, MPU9150Checks.swift, KernelIIOChecks.swift,
# PressureChecks.swift); i2c-stub takes at most 10.
stub_chips=0x0c,0x1c,0x1d,0x28,0x5c,0x68,0x69,0x6a,0x6b,0x76
# The plain-I2C adapter holds the images ChipChecks.swift and MPU9150Checks.swift write: AK8975,
# LIS3MDL, BNO055, MPU-6050, ICM-20948 then MPU-9150, LSM6DSOX, LSM9DS1, and the BMM150 that
# bmc150_magn reads beside our driver (BMM150Checks.swift) (at most 8).
regfile_chips=0x0c,0x10,0x1c,0x28,0x68,0x69,0x6a,0x6b
# 0x0C answers only while the MPU at 0x69 has INT_PIN_CFG BYPASS_EN set (and I2C_MST_EN clear).
regfile_bypass="bypass_host=0x69 bypass_chip=0x0c"
iio_drivers="inv-mpu6050-i2c st_lsm6dsx_i2c bmi160_i2c mma8452 bmp280-i2c st_pressure_i2c dps310 adxl345_i2c bmc150_magn_i2c"

for tool in swift qemu-system-x86_64 cpio apt-get apt-cache dpkg-deb gzip timeout depmod make; do
    command -v "$tool" >/dev/null || { echo "kernel tier: '$tool' not found" >&2; exit 1; }
done
busybox=/bin/busybox
if [ ! -x "$busybox" ] || ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed'; then
    echo "kernel tier: $busybox must be the static busybox: apt-get install busybox-static" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kernel-tier.XXXXXX")
trap 'rm -rf "$work"' EXIT

# KERNEL_TIER_CHECK_BINARY: a check binary built beforehand (CI's release build, with the Swift
# runtime linked in); its shared libraries go into the initramfs with it. Else a fully static one.
if [ -n "${KERNEL_TIER_CHECK_BINARY:-}" ]; then
    check_binary=$KERNEL_TIER_CHECK_BINARY
    [ -x "$check_binary" ] || { echo "kernel tier: KERNEL_TIER_CHECK_BINARY=$check_binary is not an executable: build it (swift build -c release --static-swift-stdlib --product i2c-kernel-check) or unset it" >&2; exit 1; }
    echo "== the check binary: $check_binary (built beforehand)"
else
    echo "== building the static check binary"
    swift build -c release --product i2c-kernel-check -Xswiftc -static-executable --scratch-path .build-static
    check_binary=.build-static/release/i2c-kernel-check
fi

echo "== fetching Debian's kernel (unpacked in $work, not installed)"
kernel_package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$kernel_package" ] || { echo "kernel tier: linux-image-amd64 names no kernel package; run apt-get update" >&2; exit 1; }
(cd "$work" && apt-get download -q "$kernel_package" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
deb=$(ls "$work"/linux-image-*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "kernel tier: could not download $kernel_package" >&2; exit 1; }
dpkg-deb -x "$deb" "$work/kernel"
vmlinuz=$(ls "$work"/kernel/boot/vmlinuz-* | head -n 1)
modules=$(ls -d "$work"/kernel/lib/modules/*/kernel/drivers/i2c)
kernel_dir=$(ls -d "$work"/kernel/lib/modules/*)
# The package ships no modules.dep (the installer makes it): depmod writes it from the modules.
depmod -b "$work/kernel" "$(basename "$kernel_dir")"
kernel_version=${kernel_package#linux-image-}

echo "== building the test-only plain-I2C adapter module against linux-headers-$kernel_version"
headers=/usr/src/linux-headers-$kernel_version
if [ ! -d "$headers" ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-headers-$kernel_version" >/dev/null \
            || { echo "kernel tier: could not install linux-headers-$kernel_version (run apt-get update?)" >&2; exit 1; }
    else
        echo "kernel tier: $headers is missing: apt-get install linux-headers-$kernel_version (as root)" >&2
        exit 1
    fi
fi
mkdir -p "$work/regfile"
cp scripts/i2c-regfile/i2c-regfile.c scripts/i2c-regfile/Kbuild "$work/regfile/"
if ! make -C "$headers" M="$work/regfile" modules >"$work/regfile/build.log" 2>&1; then
    cat "$work/regfile/build.log" >&2
    echo "kernel tier: the plain-I2C test module did not build against $headers (log above)" >&2
    exit 1
fi

echo "== assembling the initramfs"
root="$work/root"
mkdir -p "$root"/{bin,dev,proc,sys,lib}
cp "$busybox" "$root/bin/busybox"
for module in i2c-dev i2c-stub; do
    cp "$modules/$module.ko" "$root/lib/" 2>/dev/null || {
        echo "kernel tier: $module.ko not found (plain .ko expected) in $kernel_package" >&2; exit 1; }
done
mkdir -p "$root/lib/iio"
loaded=" "
for driver in $iio_drivers; do
    line=$(grep -E "/$driver\.ko:" "$kernel_dir/modules.dep" || true)
    [ -n "$line" ] || { echo "kernel tier: $driver.ko not in $kernel_package's modules.dep" >&2; exit 1; }
    order="${line%%:*}"
    for dependency in ${line#*:}; do order="$dependency $order"; done
    for module in $order; do
        case "$loaded" in *" $module "*) continue ;; esac
        loaded="$loaded$module "
        cp "$kernel_dir/$module" "$root/lib/iio/"
        basename "$module" >> "$root/lib/iio/order"
    done
done
echo "== IIO modules, in load order: $(tr '\n' ' ' < "$root/lib/iio/order")"
cp "$check_binary" "$root/bin/i2c-kernel-check"
# A dynamically linked check binary takes its shared libraries and the loader along, at the paths
# ldd names (ldd fails on a static binary: nothing to take).
if libraries=$(ldd "$check_binary" 2>/dev/null); then
    for library in $(echo "$libraries" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
fi
cp "$work/regfile/i2c-regfile.ko" "$root/lib/"
cat > "$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
insmod /lib/i2c-dev.ko
insmod /lib/i2c-stub.ko chip_addr=$stub_chips
insmod /lib/i2c-regfile.ko chip_addr=$regfile_chips $regfile_bypass || echo "FAIL loading the plain-I2C test module i2c-regfile.ko"
for module in \$(cat /lib/iio/order); do insmod /lib/iio/\$module || echo "insmod \$module failed"; done
bus=/dev/i2c-0
plain=
for adapter in /sys/bus/i2c/devices/i2c-*; do
    [ "\$(cat \$adapter/name)" = "SMBus stub driver" ] && bus=/dev/\${adapter##*/}
    [ "\$(cat \$adapter/name)" = "swift-motion register file" ] && plain=/dev/\${adapter##*/}
done
echo "== kernel \$(uname -r), i2c-stub adapter at \$bus, plain-I2C register-file adapter at \${plain:-none}"
/bin/i2c-kernel-check \$bus \$plain
echo "== check binary exited with status \$?"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 > "$work/initrd.gz")

echo "== booting $(basename "$vmlinuz") in QEMU (TCG, timeout ${boot_timeout}s)"
console="$work/console.log"
status=0
timeout --kill-after=10 "$boot_timeout" qemu-system-x86_64 \
    -accel tcg -cpu max -m 1G -smp 1 \
    -display none -monitor none -serial stdio -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" \
    </dev/null | tr -d '\r' | tee "$console" || status=$?
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "kernel tier: FAILED: the VM did not power off within ${boot_timeout}s" >&2
    exit 1
fi

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$console" | tail -n 1 || true)
if [ -z "$summary" ]; then
    echo "kernel tier: FAILED: no 'N passed, N failed' line on the console" >&2
    exit 1
fi
passed=${summary%% passed*}
failed=${summary#*, }; failed=${failed%% failed}
if [ "$failed" != 0 ] || [ "$passed" -lt "$min_checks" ]; then
    echo "kernel tier: FAILED: $summary (need 0 failed and at least $min_checks passed)" >&2
    exit 1
fi
echo "kernel tier: OK: $summary"
