import CSPI
import Glibc
import I2C

/// One SPI device behind a Linux `/dev/spidevB.C` character device (kernel module `spidev`): bus
/// B, chip select C. Each ``transfer(_:)`` is one `SPI_IOC_MESSAGE` of one full-duplex
/// `struct spi_ioc_transfer`, chip select held low for the whole frame. The mode, the clock and
/// the word size are set when it opens. Errors are the bus layer's (``I2CError``) with the
/// device's name and a hint, as on I2C. One transfer at a time (the kernel serialises them);
/// safe to share between threads.
package final class LinuxSPIBus: SPIBus {
    /// Clock polarity and phase, SPI modes 0–3.
    package enum Mode: UInt8, Sendable, CaseIterable {
        /// CPOL 0, CPHA 0.
        case mode0 = 0
        /// CPOL 0, CPHA 1.
        case mode1 = 1
        /// CPOL 1, CPHA 0.
        case mode2 = 2
        /// CPOL 1, CPHA 1: what every IMU here also accepts (each datasheet's SPI section: mode 0 or 3).
        case mode3 = 3

        /// The spidev mode bits (`SPI_CPOL`, `SPI_CPHA` of `<linux/spi/spi.h>`).
        var bits: UInt8 {
            (rawValue & 0b10 != 0 ? CSPI_MODE_CPOL : 0) | (rawValue & 0b01 != 0 ? CSPI_MODE_CPHA : 0)
        }
    }

    /// The device node, e.g. `/dev/spidev0.0`.
    package let name: String
    package let mode: Mode
    /// The clock, Hz.
    package let speedHz: UInt32
    private let descriptor: Int32

    /// What a person does to get `/dev/spidev*` on a Raspberry Pi and elsewhere.
    package static let enableSPIHint =
        "List the SPI devices with `ls /dev/spidev*`. On a Raspberry Pi enable SPI with "
        + "`sudo raspi-config nonint do_spi 0` (or add `dtparam=spi=on` to /boot/firmware/config.txt), "
        + "then reboot: /dev/spidev0.0 is CE0 (GPIO8, pin 24), /dev/spidev0.1 CE1 (GPIO7, pin 26); "
        + "elsewhere the device tree must bind `spidev` to the chip select"

    /// The character-device major number of spidev's nodes (the kernel's
    /// Documentation/admin-guide/devices.txt: "153 char SPI Bus Interface (spidev)").
    static let spidevMajor: UInt32 = 153

    /// Opens `path`, then sets `mode`, 8 bits per word and `speedHz` (1 MHz by default: within
    /// every supported IMU's SPI limit, 10 MHz for the LSM6 and BMI160, 24 MHz for the ICM-42688-P).
    ///
    /// - Throws: ``I2CError`` `.noSuchBus` (with how to enable SPI), `.permissionDenied`, …
    package init(path: String, mode: Mode = .mode3, speedHz: UInt32 = 1_000_000) throws(I2CError) {
        try Self.checkIsSPIDevice(path)
        let descriptor = retryingInterrupted { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw Self.error(errno: -descriptor, opening: true, device: path, attempted: "open")
        }
        let steps: [(String, () -> Int32)] = [
            ("SPI_IOC_WR_MODE", { CSPI_ioctl_write_mode(descriptor, mode.bits) }),
            ("SPI_IOC_WR_BITS_PER_WORD", { CSPI_ioctl_write_bits_per_word(descriptor, 8) }),
            ("SPI_IOC_WR_MAX_SPEED_HZ", { CSPI_ioctl_write_max_speed(descriptor, speedHz) }),
        ]
        for (attempted, call) in steps {
            let status = retryingInterrupted(call)
            guard status >= 0 else {
                close(descriptor)
                throw Self.error(errno: -status, opening: false, device: path, attempted: attempted)
            }
        }
        name = path
        self.mode = mode
        self.speedHz = speedHz
        self.descriptor = descriptor
    }

    /// Opens `/dev/spidev<bus>.<chipSelect>`.
    package convenience init(bus: Int, chipSelect: Int, mode: Mode = .mode3, speedHz: UInt32 = 1_000_000) throws(I2CError) {
        try self.init(path: "/dev/spidev\(bus).\(chipSelect)", mode: mode, speedHz: speedHz)
    }

    deinit {
        close(descriptor)
    }

    /// spidev's default `bufsiz` (drivers/spi/spidev.c: 4096); a longer message fails with EMSGSIZE.
    package var maximumTransferLength: Int? { 4096 }

    package func transfer(_ bytes: [UInt8]) throws(I2CError) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var received = [UInt8](repeating: 0, count: bytes.count)
        let status = bytes.withUnsafeBufferPointer { sent in
            received.withUnsafeMutableBufferPointer { reply in
                var message = spi_ioc_transfer()
                message.tx_buf = UInt64(UInt(bitPattern: sent.baseAddress))
                message.rx_buf = UInt64(UInt(bitPattern: reply.baseAddress))
                message.len = UInt32(bytes.count)
                message.speed_hz = speedHz
                message.bits_per_word = 8
                return retryingInterrupted { CSPI_ioctl_message(descriptor, &message, 1) }
            }
        }
        guard status >= 0 else {
            throw Self.error(errno: -status, opening: false, device: name, attempted: "SPI_IOC_MESSAGE of \(bytes.count) bytes")
        }
        guard status == bytes.count else {
            throw I2CError(
                .busError, bus: name, detail: "SPI_IOC_MESSAGE moved \(status) of \(bytes.count) bytes",
                hint: "the controller cut the transfer short; check the wiring and lower the clock")
        }
        return received
    }

    /// Before opening: `path` must be a spidev character device, else it is named for what it is.
    static func checkIsSPIDevice(_ path: String) throws(I2CError) {
        guard !path.isEmpty else {
            throw I2CError(.noSuchBus, bus: path, detail: "the SPI device path is empty", hint: enableSPIHint)
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // open() reports it, with its errno
        if status.st_mode & S_IFMT == S_IFCHR, UInt32((status.st_rdev >> 8) & 0xfff) == spidevMajor { return }
        throw I2CError(
            .noSuchBus, bus: path, detail: "\(path) is not an SPI device (spidev)",
            hint: "pass a device listed by `ls /dev/spidev*` (/dev/spidevB.C: bus B, chip select C)")
    }

    /// The ``I2CError`` for an errno from spidev, with a hint a person can act on.
    package static func error(errno code: Int32, opening: Bool, device: String, attempted: String) -> I2CError {
        let reason = "\(attempted) failed: \(LinuxI2CBus.describe(errno: code))"
        let (kind, detail, hint): (I2CError.Kind, String, String?) = switch (opening, code) {
        case (true, ENOENT), (true, ENODEV), (true, ENXIO):
            (.noSuchBus, "\(device) does not exist; \(reason)", enableSPIHint)
        case (_, EACCES), (_, EPERM):
            (.permissionDenied, "not allowed to use \(device); \(reason)",
             "add yourself to the spi group with `sudo usermod -aG spi $USER`, then log out and in again")
        case (_, ETIMEDOUT):
            (.timeout, reason, "the SPI controller timed out: check the wiring and lower the clock")
        case (_, EIO), (_, EAGAIN), (_, EPROTO):
            (.busError, reason, "the transfer was disturbed: check the wiring (SCLK, MOSI, MISO, CS) and lower the clock")
        case (_, EINVAL), (_, EMSGSIZE):
            (.invalidArgument, reason,
             "the controller refused the request (a mode, clock or word size it cannot do, or a transfer over spidev's bufsiz)")
        case (_, EOPNOTSUPP), (_, ENOTTY):
            (.notSupported, reason, "\(device) is not an SPI device node; pick one listed by `ls /dev/spidev*`")
        default:
            (.other, reason, nil)
        }
        return I2CError(kind, bus: device, errno: code, detail: detail, hint: hint)
    }
}
