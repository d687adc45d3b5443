/// A failed I2C transfer, with the cause kept and a hint a person can act on.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, independent of the bus type.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// No target acknowledged its address (absent, unpowered, wrong address, wiring).
        case noAcknowledge = "no acknowledge"
        /// Arbitration lost, bus stuck, short transfer, I/O error.
        case busError = "bus error"
        /// The adapter gave up waiting (clock stretching, stuck SDA).
        case timeout
        /// The adapter cannot do this kind of transfer.
        case notSupported = "not supported"
        /// The device node exists but this user may not open it.
        case permissionDenied = "permission denied"
        /// The device node does not exist.
        case noSuchBus = "no such bus"
        /// Bad arguments for this bus (a read of 0 bytes, a transfer too long).
        case invalidArgument = "invalid argument"
        /// Any other failure; `errno` says which.
        case other
    }

    public var kind: Kind
    /// The bus, e.g. `/dev/i2c-1`.
    public var bus: String
    /// The target, when the failure concerns one.
    package var address: I2CAddress?
    /// The operating system's error number, when there was one (for programs; ``detail`` names it
    /// for people, e.g. "No such device or address (ENXIO)").
    public var errno: Int32?
    /// What was attempted and what came back.
    public var detail: String
    /// What a person can do about it.
    public var hint: String?

    package init(
        _ kind: Kind, bus: String, address: I2CAddress? = nil, errno: Int32? = nil,
        detail: String, hint: String? = nil
    ) {
        self.kind = kind
        self.bus = bus
        self.address = address
        self.errno = errno
        self.detail = detail
        self.hint = hint
    }

    public var description: String {
        var text = "\(bus)"
        if let address { text += " at \(address)" }
        text += ": \(kind.rawValue): \(detail)"
        if let hint { text += ". \(hint)" }
        return text
    }
}
