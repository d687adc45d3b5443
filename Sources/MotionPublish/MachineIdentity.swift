import FileAccess
import Foundation

/// What tells this machine from another of the same hostname (two Raspberry Pis called
/// `raspberrypi` must not publish under one topic or one Home Assistant device): the device
/// tree's serial number where the firmware gives one (a Raspberry Pi's SoC serial, a Jetson's),
/// else systemd's machine id (machine-id(5): 32 hex digits, made at installation), else nothing.
package enum MachineIdentity {
    /// Where they are read (the device tree's `serial-number` node ends with a NUL).
    package static let deviceTreeSerial = "/proc/device-tree/serial-number"
    package static let machineID = "/etc/machine-id"

    /// Hex digits kept of the machine id: 48 bits, enough to tell a fleet apart.
    static let machineIDDigits = 12

    /// A short identifier of letters and digits; nil when neither file gives one.
    package static func identifier(deviceTreeSerial: String = deviceTreeSerial, machineID: String = machineID) -> String? {
        if let serial = read(deviceTreeSerial) {
            // Leading zeros (a Pi's serial is "10000000…" or "00000000…") say nothing.
            let digits = serial.drop { $0 == "0" }
            if !digits.isEmpty { return String(digits.suffix(16)) }
        }
        if let id = read(machineID), id.count >= machineIDDigits { return String(id.prefix(machineIDDigits)) }
        return nil
    }

    /// The ASCII letters and digits of a small file; nil when it cannot be read or has none.
    private static func read(_ path: String) -> String? {
        let data: Data
        do {
            data = try FileContents.read(path, what: "the machine's identity", limit: FileContents.Limit.deviceTreeModel)
        } catch {
            // Absent on this machine (no device tree, no systemd): the next source is tried.
            return nil
        }
        let text = String(decoding: data, as: UTF8.self).lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return text.isEmpty ? nil : text
    }
}
