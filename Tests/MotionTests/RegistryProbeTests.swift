import I2C
@testable import MotionTools
import MotionSimulator
import Sensors
import Testing

/// `probe` on the simulated bus names every emulated chip at each address its datasheet gives it
/// (the emulator registry's, from the datasheets), the same name at each; and the driver registry
/// looks for the chip at exactly those addresses. Driven by the two registries, so that a chip
/// added to them is checked without a line here.
@Suite struct RegistryProbeTests {
    /// The name `probe` gives the chip at `address` on `board`'s bus, and every address it named.
    static func probe(_ board: SimulatedBoard, at address: I2CAddress) -> (name: String?, results: [ProbeResult]) {
        let results = probeBus(board.bus)
        return (results.first { $0.address == address }?.chipName, results)
    }

    /// Checks that `names` (one per address) is one name, and that the driver's descriptor of that
    /// name looks for the chip at `addresses`.
    static func expectOneChip(_ names: [String?], at addresses: [I2CAddress], among descriptors: [ChipDescriptor], _ chip: String) {
        let named = Set(names.compactMap { $0 })
        #expect(names.allSatisfy { $0 != nil } && named.count == 1, "\(chip): probe named \(names) at \(addresses)")
        guard let name = named.first, named.count == 1 else { return }
        let descriptor = descriptors.first { $0.name == name }
        #expect(descriptor.map { Set($0.identity.addresses) == Set(addresses) } == true,
                "\(chip): the driver's \(name) is looked for at \(descriptor.map { "\($0.identity.addresses)" } ?? "no descriptor"), the emulator answers at \(addresses)")
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func everyIMUIsNamedAtEachOfItsAddresses(imu: SimulatedBoard.IMU) {
        let names = imu.possibleAddresses.map { address in
            let board = SimulatedBoard(imu: imu, imuAddress: address, magnetometer: .none, source: ConstantSource(), now: { 0 })
            let found = Self.probe(board, at: address)
            #expect(found.name != nil, "\(imu) at \(address): \(found.results)")
            return found.name
        }
        Self.expectOneChip(names, at: imu.possibleAddresses, among: ChipRegistry.imus, "\(imu)")
    }

    /// Beside an MPU-6050 at 0x68 (no address of theirs), each magnetometer at each of its addresses.
    @Test(arguments: SimulatedBoard.Magnetometer.allCases)
    func everyMagnetometerIsNamedAtEachOfItsAddresses(magnetometer: SimulatedBoard.Magnetometer) {
        let names = magnetometer.possibleAddresses.map { address in
            let board = SimulatedBoard(imu: .mpu6050, magnetometer: .chip(magnetometer), magnetometerAddress: address,
                                       source: ConstantSource(), now: { 0 })
            let found = Self.probe(board, at: address)
            #expect(found.name != nil, "\(magnetometer) at \(address): \(found.results)")
            return found.name
        }
        Self.expectOneChip(names, at: magnetometer.possibleAddresses, among: ChipRegistry.magnetometers, "\(magnetometer)")
    }

    @Test(arguments: SimulatedBoard.Barometer.allCases)
    func everyBarometerIsNamedAtEachOfItsAddresses(barometer: SimulatedBoard.Barometer) {
        let addresses = barometer.entry.possibleAddresses
        let names = addresses.map { address in
            let board = SimulatedBoard(imu: .mpu6050, magnetometer: .none, barometer: barometer, barometerAddress: address,
                                       source: ConstantSource(), now: { 0 })
            let found = Self.probe(board, at: address)
            #expect(found.name != nil, "\(barometer) at \(address): \(found.results)")
            return found.name
        }
        Self.expectOneChip(names, at: addresses, among: ChipRegistry.barometers, "\(barometer)")
    }
}
