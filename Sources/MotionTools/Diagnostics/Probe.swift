import Motion
import I2C
import Sensors

/// An address that answered a bus scan.
package struct ProbeResult: Sendable, Equatable {
    /// The 7-bit address that acknowledged.
    package var address: I2CAddress
    /// The supported chip an identity register named (e.g. `MPU-6050`); nil when not identified.
    package var chipName: String?

    package init(address: I2CAddress, chipName: String? = nil) {
        self.address = address
        self.chipName = chipName
    }
}

/// How a scan asks one address whether a device is there.
///
/// The choice follows `i2cdetect`'s default and never sends a data byte to an unknown device:
/// - `quickWrite` (a zero-length write, `.write([])`: START, address with the write bit, STOP) for
///   most addresses. No byte reaches the device, so no register or pointer changes.
/// - `readByte` (one-byte read, no register) for 0x30–0x37 and 0x50–0x5F: some EEPROMs there
///   (e.g. the AT24RF08) take a quick write as a command and can be corrupted by it; a read only
///   moves their internal address pointer.
/// When the bus cannot do a quick write (`.notSupported`), the scan reads a byte instead; that is
/// also what `i2cdetect` does on such adapters.
package enum ProbeMethod: Sendable, Equatable {
    case quickWrite
    case readByte

    /// The method `i2cdetect` uses by default at `address`.
    package static func preferred(for address: I2CAddress) -> ProbeMethod {
        switch address.rawValue {
        case 0x30...0x37, 0x50...0x5F: .readByte
        default: .quickWrite
        }
    }

    var operations: [I2COperation] {
        switch self {
        case .quickWrite: [.write([])]
        case .readByte: [.read(count: 1)]
        }
    }
}

/// The addresses in 0x08–0x77 (``I2CAddress/scanRange``) that acknowledge on `bus`, in order.
///
/// Any failure at an address (no acknowledge, bus error, timeout) counts as nothing there.
package func scanBus(_ bus: any I2CBus) -> [I2CAddress] {
    I2CAddress.scanRange.filter { answers(bus, $0) }
}

/// Scans `bus` like ``scanBus(_:)`` and asks `identify` which supported chip sits at each address
/// that answered (nil when it cannot tell). By default ``identifySupportedChip(_:_:)`` reads the
/// identity registers of the chips known at that address.
package func probeBus(
    _ bus: any I2CBus, identify: (any I2CBus, I2CAddress) -> String? = identifySupportedChip
) -> [ProbeResult] {
    scanBus(bus).map { ProbeResult(address: $0, chipName: identify(bus, $0)) }
}

/// The name of the supported chip at `address` (`LSM6DSO/LSM6DSOX`, `MPU-6050`, …), read from the
/// identity registers of the chips known at that address (``Sensors/ChipCatalog/identify(bus:address:lsm6dso32:)``);
/// nil for an address no supported chip uses, a device whose identity matches none, or a failed read.
package func identifySupportedChip(_ bus: any I2CBus, _ address: I2CAddress) -> String? {
    do throws(SensorError) {
        return try ChipCatalog.identify(bus: bus, address: address)?.name
    } catch {
        return nil
    }
}

/// Whether `address` acknowledges `method` (by default the preferred one for the address).
private func answers(_ bus: any I2CBus, _ address: I2CAddress, using method: ProbeMethod? = nil) -> Bool {
    let method = method ?? ProbeMethod.preferred(for: address)
    do {
        _ = try bus.transaction(address, method.operations)
        return true
    } catch where error.kind == .notSupported && method == .quickWrite {
        return answers(bus, address, using: .readByte)
    } catch {
        return false
    }
}
