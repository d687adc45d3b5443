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
    /// Probes the board `place` puts the chip on at each of `addresses`: a name at each, one name,
    /// and the driver's descriptor of that name looks for the chip at exactly those addresses.
    static func expectNamed(_ chip: String, at addresses: [I2CAddress], among descriptors: [ChipDescriptor],
                            on place: (I2CAddress) -> SimulatedBoard) {
        let names = addresses.map { address in
            let results = probeBus(place(address).bus)
            let name = results.first { $0.address == address }?.chipName
            #expect(name != nil, "\(chip) at \(address): \(results)")
            return name
        }
        let named = Set(names.compactMap { $0 })
        #expect(names.allSatisfy { $0 != nil } && named.count == 1, "\(chip): probe named \(names) at \(addresses)")
        guard let name = named.first, named.count == 1 else { return }
        let descriptor = descriptors.first { $0.name == name }
        #expect(descriptor.map { Set($0.identity.addresses) == Set(addresses) } == true,
                "\(chip): the driver's \(name) is looked for at \(descriptor.map { "\($0.identity.addresses)" } ?? "no descriptor"), the emulator answers at \(addresses)")
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func everyIMUIsNamedAtEachOfItsAddresses(imu: SimulatedBoard.IMU) {
        Self.expectNamed("\(imu)", at: imu.possibleAddresses, among: ChipRegistry.imus) { address in
            SimulatedBoard(imu: imu, imuAddress: address, magnetometer: .none, source: ConstantSource(), now: { 0 })
        }
    }

    /// Beside an MPU-6050 at 0x68 (no address of theirs), each magnetometer at each of its addresses.
    @Test(arguments: SimulatedBoard.Magnetometer.allCases)
    func everyMagnetometerIsNamedAtEachOfItsAddresses(magnetometer: SimulatedBoard.Magnetometer) {
        Self.expectNamed("\(magnetometer)", at: magnetometer.possibleAddresses, among: ChipRegistry.magnetometers) { address in
            SimulatedBoard(imu: .mpu6050, magnetometer: .chip(magnetometer), magnetometerAddress: address, source: ConstantSource(), now: { 0 })
        }
    }

    @Test(arguments: SimulatedBoard.Barometer.allCases)
    func everyBarometerIsNamedAtEachOfItsAddresses(barometer: SimulatedBoard.Barometer) {
        Self.expectNamed("\(barometer)", at: barometer.entry.possibleAddresses, among: ChipRegistry.barometers) { address in
            SimulatedBoard(imu: .mpu6050, magnetometer: .none, barometer: barometer, barometerAddress: address, source: ConstantSource(), now: { 0 })
        }
    }
}
