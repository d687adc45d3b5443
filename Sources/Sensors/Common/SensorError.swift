import I2C

/// Why a driver call failed. Bus failures keep the ``I2CError`` they came from.
package enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus transfer failed; the underlying error is kept unchanged.
    case bus(I2CError)
    /// The identity register did not hold the value the driver expects.
    case unexpectedIdentity(chip: String, address: I2CAddress, register: UInt8, expected: [UInt8], found: [UInt8])
    /// A requested setting (rate, range, filter) is not one the chip supports exactly.
    case unsupportedSetting(chip: String, setting: String, requested: String, supported: [String])
    /// The chip did not clear its reset bit within the bounded number of polls.
    case resetTimeout(chip: String, address: I2CAddress, polls: Int)
    /// The chip did not report new data within the bounded number of polls.
    case dataTimeout(chip: String, address: I2CAddress, polls: Int)
    /// The driver does not offer this feature for this chip (e.g. self-test on a QMC5883L).
    case notSupported(chip: String, feature: String)
    /// The chip did not accept the configuration file the driver loaded into it (the BMI270's
    /// INTERNAL_STATUS after INIT_CTRL): `status` is what it reported after the last of `attempts`.
    case configurationFileRejected(chip: String, address: I2CAddress, status: UInt8, attempts: Int)

    package var description: String {
        switch self {
        case .bus(let error):
            return "\(error)"
        case let .unexpectedIdentity(chip, address, register, expected, found):
            return "device at \(address) is not a \(chip): register \([register].hexList) reads [\(found.hexList)], "
                + "expected [\(expected.hexList)]; check the address and the chip on the board"
        case let .unsupportedSetting(chip, setting, requested, supported):
            return "\(setting) \(requested) is not supported by \(chip); supported: \(supported.joined(separator: ", "))"
        case let .resetTimeout(chip, address, polls):
            return "\(chip) at \(address) did not finish its software reset after \(polls) polls; "
                + "power-cycle the board and check its supply"
        case let .dataTimeout(chip, address, polls):
            return "\(chip) at \(address) reported no new data after \(polls) polls; check that it is configured and powered"
        case let .notSupported(chip, feature):
            return "\(chip) has no \(feature)"
        case let .configurationFileRejected(chip, address, status, attempts):
            return "\(chip) at \(address) did not start its feature engine: INTERNAL_STATUS reads [\([status].hexList)] "
                + "after \(attempts) uploads of its configuration file (0x01 is init_ok, 0x02 init_err: the bytes arrived wrong); "
                + "check the wiring and pull-ups, lower the bus speed, and run `motionctl doctor`"
        }
    }
}
