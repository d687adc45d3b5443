import Foundation
import I2C
import IIO

/// An I2C client the kernel declared at an address (device tree overlay, ACPI, `new_device`),
/// and the kernel driver bound to it, if any. While the client exists, `I2C_SLAVE` on that
/// address fails with EBUSY (drivers/i2c/i2c-dev.c, `i2cdev_check_addr`): our I2C driver cannot
/// reach the chip, Linux's own driver (IIO) can.
package struct KernelDriverClaim: Sendable, Equatable, CustomStringConvertible {
    /// `/dev/i2c-1`.
    package var bus: String
    package var address: I2CAddress
    /// The client's `name` (the device-tree compatible's part, e.g. `mpu6050`).
    package var clientName: String
    /// The bound driver (`inv-mpu6050-i2c`), nil when no driver took the client.
    package var driver: String?

    package var description: String {
        if let driver { return "the kernel driver \(driver) holds \(clientName) at \(address) on \(bus)" }
        return "the kernel declares \(clientName) at \(address) on \(bus) (no driver bound, but I2C access is refused as busy)"
    }

    /// What to do, both ways out.
    package var fix: String {
        let unbind = driver.map { " (or, until the next boot: echo \(Self.clientDirectoryName(bus: bus, address: address) ?? "N-00XX") | sudo tee /sys/bus/i2c/drivers/\($0)/unbind)" } ?? ""
        return "read it through Linux's driver with --source iio (MotionSource.iio); or, for swift-motion's own I2C driver "
            + "(chip FIFO, self-test), remove the overlay that declares it (the dtoverlay=\(clientName) line in /boot/firmware/config.txt) and reboot\(unbind)"
    }

    /// The client directory's name under /sys/bus/i2c/devices: "%d-%04x", bus number and
    /// address (drivers/i2c/i2c-core-base.c, `i2c_dev_set_name`).
    static func clientDirectoryName(bus: String, address: I2CAddress) -> String? {
        guard bus.hasPrefix("/dev/i2c-"), let number = Int(bus.dropFirst("/dev/i2c-".count)), number >= 0 else { return nil }
        let hex = String(address.rawValue, radix: 16)
        return "\(number)-" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The claims at `addresses` on `bus`, read under `sysfsRoot` (`/sys`; a fake tree in tests).
    package static func claims(bus: String, addresses: [I2CAddress], sysfsRoot: String = "/sys") -> [KernelDriverClaim] {
        addresses.compactMap { address in
            guard let name = clientDirectoryName(bus: bus, address: address) else { return nil }
            let directory = "\(sysfsRoot)/bus/i2c/devices/\(name)"
            guard SysfsFiles.exists(directory) else { return nil }
            var clientName = "a device"
            do throws(IIOError) { clientName = try SysfsFiles.read("\(directory)/name") } catch {}
            var driver: String?
            do {
                driver = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/driver")).lastPathComponent
            } catch {
                driver = nil   // no driver bound: the link is absent
            }
            return KernelDriverClaim(bus: bus, address: address, clientName: clientName, driver: driver)
        }
    }
}

/// What ``MotionSource/choose(board:bus:iio:sysfsRoot:)`` picked, and why (for a log line).
package struct SourceChoice: Sendable {
    package var source: MotionSource
    package var reason: String
}

extension MotionSource {
    /// The automatic choice: our I2C driver on `board` when its IMU is free; Linux's IIO driver
    /// when a kernel driver holds the IMU (EBUSY on I2C) or there is no known board; nil when
    /// there is neither a board nor an IIO accelerometer (the caller decides: the simulated board).
    package static func choose(board: Board?, bus: String?, iio: IIOSelection = IIOSelection(), sysfsRoot: String = "/sys") -> SourceChoice? {
        let sensors = iio.sensors()
        guard let board else {
            guard let sensors else { return nil }
            return SourceChoice(source: .iio(iio), reason: "not a known board; Linux's own driver offers \(sensors.summary): reading it through IIO")
        }
        let path = bus ?? board.defaultBus?.device
        let claims = path.map { KernelDriverClaim.claims(bus: $0, addresses: board.imuAddresses, sysfsRoot: sysfsRoot) } ?? []
        guard let claim = claims.first else {
            return SourceChoice(source: .board(board, bus: bus), reason: "\(board.name): the IMU addresses are free, using swift-motion's I2C driver")
        }
        guard let sensors else {
            return SourceChoice(
                source: .board(board, bus: bus),
                reason: "\(claim), and no IIO accelerometer is listed under \(iio.root): trying I2C anyway (expect EBUSY); \(claim.fix)")
        }
        return SourceChoice(source: .iio(iio), reason: "\(claim): reading \(sensors.summary) through IIO")
    }
}
