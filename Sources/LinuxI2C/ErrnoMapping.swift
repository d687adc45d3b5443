import Glibc
import I2C

extension LinuxI2CBus {
    /// When an errno came back: opening the device node, or using an open bus.
    package enum Stage: Sendable {
        /// `open("/dev/i2c-N")`.
        case open
        /// Any ioctl or SMBus transfer on an open bus (selecting a target, `I2C_FUNCS`, `I2C_RDWR`, …).
        case transfer
    }

    /// How to get an I2C bus, shared by the "no such bus" error and `motionctl probe`.
    package static let enableI2CHint =
        "List the buses with `ls /dev/i2c-*`. On a Raspberry Pi enable I2C with "
        + "`sudo raspi-config nonint do_i2c 0` (or add `dtparam=i2c_arm=on` to /boot/firmware/config.txt), "
        + "then reboot; elsewhere load the character devices with `sudo modprobe i2c-dev`"

    /// The character-device major number of i2c-dev's `/dev/i2c-N` nodes (the kernel's
    /// Documentation/admin-guide/devices.txt: "89 char I2C bus interface").
    static let i2cDeviceMajor: UInt32 = 89

    /// Before opening: `path` must be an i2c-dev character device. A directory, a regular file, a
    /// pipe, `/dev/null` or a terminal is named for what it is (opening them would fail with an
    /// errno that says "permission denied" or "does not exist", or would not fail at all).
    static func checkIsBusNode(_ path: String) throws(I2CError) {
        var status = stat()
        guard !path.isEmpty else {
            throw I2CError(.noSuchBus, bus: path, detail: "the bus path is empty", hint: enableI2CHint)
        }
        guard stat(path, &status) == 0 else { return }   // open() reports it, with its errno
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFCHR:
            let major = UInt32((status.st_rdev >> 8) & 0xfff)
            if major == i2cDeviceMajor { return }
            kind = "a character device of another kind (major \(major): /dev/null, a terminal, …)"
        case S_IFDIR: kind = "a directory"
        case S_IFREG: kind = "a regular file"
        case S_IFIFO: kind = "a named pipe"
        case S_IFBLK: kind = "a block device"
        default: kind = "not a device node"
        }
        throw I2CError(
            .noSuchBus, bus: path, detail: "\(path) is \(kind), not an I2C bus",
            hint: "pass a bus listed by `ls /dev/i2c-*` (/dev/i2c-N, or just N)")
    }

    /// The ``I2CError`` for an errno from the Linux I2C stack, with a hint a person can act on.
    ///
    /// - Parameters:
    ///   - code: the errno (positive).
    ///   - stage: whether it came from opening the bus or from a transfer.
    ///   - bus: the device node, e.g. `/dev/i2c-1`.
    ///   - address: the target, for transfers.
    ///   - attempted: what was being done, e.g. `SMBus receive byte`.
    package static func error(
        errno code: Int32, stage: Stage, bus: String, address: I2CAddress? = nil, attempted: String
    ) -> I2CError {
        let reason = "\(attempted) failed: \(describe(errno: code))"
        let target = address.map { "at \($0) " } ?? ""
        // The kind, what happened and what to do about it; an unopened bus has no target address.
        let (kind, detail, hint): (I2CError.Kind, String, String?) = switch (stage, code) {
        case (.open, ENOENT), (.open, ENODEV), (.open, ENXIO):
            (.noSuchBus, "\(bus) does not exist; \(reason)", enableI2CHint)
        case (_, EACCES), (_, EPERM):
            (.permissionDenied, "not allowed to use \(bus); \(reason)",
             "add yourself to the i2c group with `sudo usermod -aG i2c $USER`, then log out and in again")
        case (.transfer, ENXIO), (.transfer, EREMOTEIO), (.transfer, ENODEV):
            (.noAcknowledge, "no device acknowledged \(target)on \(bus); \(reason)",
             "check the wiring (SDA, SCL, 3.3 V, GND) and the sensor's power, and its address: "
                + "an address pin (AD0/SA0/SDO) moves it, e.g. 0x68 to 0x69; "
                + "`motionctl probe` lists the addresses that answer")
        case (_, ETIMEDOUT):
            (.timeout, reason,
             "the bus is stuck or a device held the clock too long: check the pull-up resistors "
                + "and wiring, power-cycle the sensor, or lower the bus speed")
        case (_, EOPNOTSUPP):
            (.notSupported, reason, "the adapter behind \(bus) cannot do this kind of transfer")
        case (_, EIO), (_, EAGAIN), (_, EPROTO):
            (.busError, reason,
             "the transfer was disturbed: check the wiring, the pull-up resistors (2.2–10 kΩ to 3.3 V) "
                + "and the cable length; a retry may succeed")
        case (_, EINVAL):
            (.invalidArgument, reason,
             "the driver of \(bus) rejected the request (a transfer too long or an address it refuses)")
        case (_, EBUSY):
            (.other, reason, "a kernel driver has claimed this address; unbind it (see /sys/bus/i2c/devices) to use it here")
        case (_, ENOTTY):
            (.other, reason, "\(bus) is not an I2C bus device node; pick one listed by `ls /dev/i2c-*`")
        default:
            (.other, reason, nil)
        }
        return I2CError(kind, bus: bus, address: kind == .noSuchBus ? nil : address, errno: code, detail: detail, hint: hint)
    }

    /// `strerror` text with the symbolic name where it helps: `No such device or address (ENXIO)`.
    static func describe(errno code: Int32) -> String {
        let names: [Int32: String] = [
            ENOENT: "ENOENT", EACCES: "EACCES", EPERM: "EPERM", ENXIO: "ENXIO", ENODEV: "ENODEV",
            EREMOTEIO: "EREMOTEIO", ETIMEDOUT: "ETIMEDOUT", EOPNOTSUPP: "EOPNOTSUPP", EIO: "EIO",
            EAGAIN: "EAGAIN", EPROTO: "EPROTO", EINVAL: "EINVAL", EBUSY: "EBUSY", ENOTTY: "ENOTTY",
        ]
        let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
        return names[code].map { "\(text) (\($0))" } ?? text
    }
}
