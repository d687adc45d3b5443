import I2C

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A bit field inside one 8-bit register: where it lives and which bits it occupies.
struct RegisterField: Sendable, Equatable {
    /// Register address.
    var address: UInt8
    /// The bits of the field, in place (e.g. `0b1111_0000` for an ODR in bits 7:4).
    var mask: UInt8

    init(_ address: UInt8, mask: UInt8) {
        self.address = address
        self.mask = mask
    }

    private var shift: UInt8 { UInt8(mask.trailingZeroBitCount) }

    /// `register` with this field replaced by `code` (a pure bit builder).
    func setting(_ code: UInt8, in register: UInt8) -> UInt8 {
        (register & ~mask) | ((code << shift) & mask)
    }

    /// The field's code inside a register value.
    func code(in register: UInt8) -> UInt8 {
        (register & mask) >> shift
    }
}

/// The control registers a driver wrote, as it believes they are on the chip.
///
/// Fields change through the pure ``RegisterField/setting(_:in:)``; the whole register is then
/// written, so the driver never depends on a read-modify-write of the chip.
struct ShadowRegisters: Sendable {
    private var values: [UInt8: UInt8]

    init(_ initial: [UInt8: UInt8]) { values = initial }

    subscript(address: UInt8) -> UInt8 {
        get { values[address] ?? 0 }
        set { values[address] = newValue }
    }

    /// Sets `field` to `code` and returns the new whole-register value.
    mutating func set(_ field: RegisterField, _ code: UInt8) -> UInt8 {
        let value = field.setting(code, in: self[field.address])
        self[field.address] = value
        return value
    }
}

/// One supported value of a setting (rate in Hz, range in g or °/s, filter bandwidth in Hz), the
/// code to write into its field, and for ranges the sensitivity in physical units per LSB.
struct SettingOption: Sendable {
    var value: Double
    var code: UInt8
    var sensitivity: Double = 0
}

/// Exact-match lookup: a request that is not in the table throws, listing what is supported.
func lookup(
    _ requested: Double, in table: [SettingOption], setting: String, unit: String, chip: String
) throws(SensorError) -> SettingOption {
    if let option = table.first(where: { $0.value == requested }) { return option }
    throw .unsupportedSetting(
        chip: chip, setting: setting, requested: formatValue(requested) + " " + unit,
        supported: table.map { formatValue($0.value) + " " + unit })
}

/// `12.5`, `26`, `0.625`: a physical value as a person writes it.
func formatValue(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
    return "\(value)"
}

/// How a driver waits (reset, self-test settling). Tests pass ``none``.
package struct Pause: Sendable {
    package let wait: @Sendable (Duration) -> Void

    package init(_ wait: @escaping @Sendable (Duration) -> Void) { self.wait = wait }

    /// Sleeps the calling thread.
    package static let system = Pause { duration in
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        // Resume after a signal; any other failure (EINVAL) ends the wait.
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// Does not wait: for tests against an expectation bus or a simulator that needs no time.
    package static let none = Pause { _ in }
}

/// The bus calls every driver makes, with the ``I2CError`` wrapped into ``SensorError/bus(_:)``.
struct RegisterDevice: Sendable {
    let bus: any I2CBus
    let address: I2CAddress

    func read(_ register: UInt8) throws(SensorError) -> UInt8 {
        try burst(register, count: 1) { $0[0] }
    }

    /// Reads `count` consecutive registers from `register` on into storage on the stack and
    /// hands them to `body`: the read path of every sample, FIFO chunk and status poll, which
    /// allocates nothing (the bus reads into the storage; bursts up to 1 KiB stay on the stack).
    func burst<Result>(
        _ register: UInt8, count: Int, _ body: (UnsafeRawBufferPointer) throws(SensorError) -> Result
    ) throws(SensorError) -> Result {
        try withUnsafeTemporaryAllocation(byteCount: max(0, count), alignment: 1) {
            (buffer: UnsafeMutableRawBufferPointer) throws(SensorError) -> Result in
            do throws(I2CError) { try bus.readRegisters(address, register, into: buffer) } catch { throw .bus(error) }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    func read(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        do { return try bus.readRegisters(address, register, count: count) } catch { throw .bus(error) }
    }

    func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        do { try bus.writeRegister(address, register, value) } catch { throw .bus(error) }
    }

    /// Reads the identity register(s) from `register` on and throws when they differ from `expected`.
    func checkIdentity(_ register: UInt8, expected: [UInt8], chip: String) throws(SensorError) {
        let found = try read(register, count: expected.count)
        guard found == expected else {
            throw .unexpectedIdentity(chip: chip, address: address, register: register, expected: expected, found: found)
        }
    }
}

/// Where a chip puts the three signed 16-bit axis values in a burst of output registers.
struct AxisLayout: Sendable {
    /// Byte offsets of x, y and z (of the first byte of each).
    var offsets: SIMD3<Int>
    var bigEndian: Bool

    /// x, y, z at consecutive offsets 0, 2, 4.
    static let littleEndian = AxisLayout(offsets: [0, 2, 4], bigEndian: false)
    static let bigEndian = AxisLayout(offsets: [0, 2, 4], bigEndian: true)

    /// The counts of the axes, with the layout starting at `base`.
    func counts<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from base: Int = 0) -> SIMD3<Int16> where Bytes.Index == Int {
        func read(_ offset: Int) -> Int16 { bigEndian ? int16BE(bytes, offset) : int16LE(bytes, offset) }
        return SIMD3(read(base + offsets.x), read(base + offsets.y), read(base + offsets.z))
    }
}

/// Little-endian signed 16-bit value at `offset`.
func int16LE<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> Int16 where Bytes.Index == Int {
    Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)
}

/// Big-endian signed 16-bit value at `offset`.
func int16BE<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> Int16 where Bytes.Index == Int {
    Int16(bitPattern: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
}

let degreesToRadians = Double.pi / 180
