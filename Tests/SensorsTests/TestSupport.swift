import I2C
import I2CMock
import Sensors
import Testing

/// Big-endian bytes of signed 16-bit values, as InvenSense and HMC5883L registers hold them.
func bigEndian(_ values: [Int16]) -> [UInt8] {
    values.flatMap { value -> [UInt8] in
        let bits = UInt16(bitPattern: value)
        return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }
}

/// Little-endian bytes of signed 16-bit values, as ST and AKM registers hold them.
func littleEndian(_ values: [Int16]) -> [UInt8] {
    values.flatMap { value -> [UInt8] in
        let bits = UInt16(bitPattern: value)
        return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }
}

func close(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, tolerance: Double = 1e-9) -> Bool {
    (0..<3).allSatisfy { close(a[$0], b[$0], tolerance: tolerance) }
}

/// The IMU driver `make` builds on an expectation bus that expects `initialization`, configured
/// at its defaults.
func configured<IMU: IMUDriver>(_ initialization: [I2CExpectation], _ make: (ExpectationBus) -> IMU) throws -> (bus: ExpectationBus, imu: IMU) {
    let bus = ExpectationBus(initialization)
    let imu = make(bus)
    try imu.configure(imu.defaultConfiguration)
    return (bus, imu)
}

/// The magnetometer driver `make` builds on an expectation bus that expects `initialization`,
/// configured at its defaults.
func configured<Magnetometer: MagnetometerDriver>(
    _ initialization: [I2CExpectation], _ make: (ExpectationBus) -> Magnetometer
) throws -> (bus: ExpectationBus, magnetometer: Magnetometer) {
    let bus = ExpectationBus(initialization)
    let magnetometer = make(bus)
    try magnetometer.configure(magnetometer.defaultConfiguration)
    return (bus, magnetometer)
}

/// An ST IMU's start-up at `address`: the identity register read (register, value); SW_RESET
/// (bit 0 of `control`, IF_INC bit 2 kept) written and polled once busy, then clear; BDU | IF_INC
/// (0x44) written to `control`; then `writes`, each a register and its value.
func stInitSequence(address: UInt8, identity: (UInt8, UInt8), control: UInt8, then writes: [(UInt8, UInt8)]) -> [I2CExpectation] {
    [
        .writeRead(address, [identity.0], reply: [identity.1]),
        .write(address, [control, 0x05]),
        .writeRead(address, [control], reply: [0x05]),
        .writeRead(address, [control], reply: [0x04]),
        .write(address, [control, 0x44]),
    ] + writes.map { .write(address, [$0.0, $0.1]) }
}

/// Checks the expectation list was used up exactly (and marks the bus checked).
func expectFinished(_ bus: ExpectationBus, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(bus.problems == [], sourceLocation: sourceLocation)
    bus.done()
}

/// `configure` fails with a reset timeout after `polls` polls of the reset bit, and uses up the
/// expectations of `bus`.
func expectResetTimeout(
    after polls: Int, on bus: ExpectationBus, sourceLocation: SourceLocation = #_sourceLocation,
    _ configure: () throws(SensorError) -> Void
) {
    let error = sensorError(configure)
    guard case .resetTimeout(_, _, polls) = error else {
        Issue.record("got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    expectFinished(bus, sourceLocation: sourceLocation)
}

/// The error a throwing call threw.
func sensorError(_ body: () throws(SensorError) -> Void) -> SensorError? {
    do { try body() } catch { return error }
    return nil
}

let degree = Double.pi / 180
