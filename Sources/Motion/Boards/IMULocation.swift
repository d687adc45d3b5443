import I2C

/// Where one IMU sits: at an address on an I2C bus, or behind an SPI chip select. A board file
/// lists its IMUs (`"imus"`); ``MotionSource/device(_:_:)`` opens a manager on one, so several
/// managers can each run on their own chip.
public enum IMULocation: Sendable, Hashable, CustomStringConvertible {
    /// At `address` (7-bit, e.g. 0x6A) on the I2C bus `bus` (`/dev/i2c-1`).
    case i2c(bus: String, address: UInt8)
    /// Behind the SPI device `device` (`/dev/spidev0.0`: bus 0, chip select 0).
    case spi(device: String)

    public var description: String {
        switch self {
        case .i2c(let bus, let address): "\(bus) at \(I2CAddress(address))"
        case .spi(let device): device
        }
    }
}

/// One IMU a board file lists: where it sits and, when the board says, which chip it is (the
/// simulator places that chip there; on hardware the chip is identified as usual).
package struct IMUPlacement: Sendable, Equatable {
    package var location: IMULocation
    /// The chip's name as the board file gives it (`ICM-42688-P`); nil: whatever answers.
    package var chip: String?

    package init(_ location: IMULocation, chip: String? = nil) {
        self.location = location
        self.chip = chip
    }
}

extension Board {
    /// The board as one IMU at `location` sees it: its IMU looked for only there (an I2C
    /// address; the SPI device is the place itself), its chip the one the board file names
    /// there, and its separate magnetometer only when `location` is the board's first listed
    /// IMU (or the board lists none).
    package func narrowed(to location: IMULocation) -> Board {
        var board = self
        switch location {
        case .i2c(_, let address): board.narrowedIMUAddresses = [I2CAddress(address)]
        case .spi: board.narrowedIMUAddresses = nil  // not sent on SPI: any IMU's address names it
        }
        if let placement = imus.first(where: { $0.location == location }), let chip = placement.chip { board.imuChip = chip }
        if let first = imus.first, first.location != location {
            board.narrowedMagnetometerAddresses = []
            board.magnetometerChip = nil
        }
        return board
    }
}
