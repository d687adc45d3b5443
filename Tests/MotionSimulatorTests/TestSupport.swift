import I2C
import MotionSimulator
import Testing
import Timing

/// A physical input with every component distinct, so swapped axes show up.
func testState(
    accelerationG: SIMD3<Double> = SIMD3(0.25, -0.5, 1),
    rateDPS: SIMD3<Double> = SIMD3(10, -20, 30),
    fieldMicrotesla: SIMD3<Double> = SIMD3(20.7, -5.3, -44.4),
    temperature: Double = 30
) -> ConstantSource {
    ConstantSource(PhysicalState(
        time: 0,
        specificForce: accelerationG * PhysicalState.standardGravity,
        angularRate: rateDPS * .pi / 180,
        magneticField: fieldMicrotesla,
        temperature: temperature))
}

/// A bus with one device at `address`, on a virtual clock.
func busWith(_ device: any SimulatedDevice, at address: UInt8, clock: VirtualClock) -> SimulatedBus {
    let bus = SimulatedBus(now: { clock.now })
    bus.attach(device, at: I2CAddress(address))
    return bus
}

/// A bus on `clock` with a new `Emulator` sensing `source` at `address`.
func busWith<Emulator: ChipEmulator>(
    _: Emulator.Type, source: any PhysicalSource = testState(), options: EmulatorOptions = .init(),
    at address: UInt8, clock: VirtualClock
) -> SimulatedBus {
    busWith(Emulator(source: source, now: { clock.now }, options: options), at: address, clock: clock)
}

extension SimulatedBus {
    /// `count` registers from `register` on, read in one burst; the test fails unless the read
    /// was one bus transaction.
    func readBurst(_ address: I2CAddress, _ register: UInt8, count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        clearLog()
        let bytes = try readRegisters(address, register, count: count)
        #expect(log.count == 1, "one transaction", sourceLocation: sourceLocation)
        return bytes
    }
}

/// The emulator a suite tests: its type, where it answers, and the clock the suite's buses run on.
struct EmulatorUnderTest<Emulator: ChipEmulator> {
    /// Where the emulator answers: the address the tests read and write.
    let address: I2CAddress
    let clock = VirtualClock()

    init(at address: I2CAddress) { self.address = address }
}

/// A suite about one emulator, named in one line (`let chip = EmulatorUnderTest<LIS3MDLEmulator>(at: …)`):
/// ``makeBus(_:options:)`` gives a bus of its own with a new one at ``address``, on the suite's clock.
protocol EmulatorSuite {
    associatedtype Emulator: ChipEmulator
    var chip: EmulatorUnderTest<Emulator> { get }
}

extension EmulatorSuite {
    var address: I2CAddress { chip.address }
    var clock: VirtualClock { chip.clock }

    func makeBus(_ source: any PhysicalSource = testState(), options: EmulatorOptions = .init()) -> SimulatedBus {
        busWith(Emulator.self, source: source, options: options, at: address.rawValue, clock: clock)
    }
}

func int16LE(_ bytes: [UInt8], _ index: Int) -> Int16 {
    Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
}

func int16BE(_ bytes: [UInt8], _ index: Int) -> Int16 {
    Int16(bitPattern: UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
}

/// The three little-endian axes of a 6-byte output block.
func axesLE(_ bytes: [UInt8], from offset: Int = 0) -> SIMD3<Int16> {
    SIMD3(int16LE(bytes, offset), int16LE(bytes, offset + 2), int16LE(bytes, offset + 4))
}

func axesBE(_ bytes: [UInt8], from offset: Int = 0) -> SIMD3<Int16> {
    SIMD3(int16BE(bytes, offset), int16BE(bytes, offset + 2), int16BE(bytes, offset + 4))
}

/// `value / sensitivity` rounded to the nearest LSB, as the test computes it from the datasheet.
func expectedLSB(_ value: SIMD3<Double>, _ sensitivity: Double) -> SIMD3<Int16> {
    SIMD3(Int16((value.x / sensitivity).rounded()), Int16((value.y / sensitivity).rounded()), Int16((value.z / sensitivity).rounded()))
}
