import MotionSimulator
import Sensors
import Testing

/// Every named scenario, played with the chips' datasheet errors (noise, bias, hard and soft
/// iron), read through every emulated chip by its driver at the driver's default ranges, never
/// saturates: none of the scenarios asks for it (`Scenario.all` keeps within ±1.9 g and
/// ±240 °/s; the magnet comes no closer than 6 cm).
@Suite struct ScenarioSaturationTests {
    /// Each IMU with a magnetometer, so that every emulated chip is read (the MPU-9250 with its
    /// own AK8963).
    static let boards: [(SimulatedBoard.IMU, SimulatedBoard.MagnetometerChoice)] = [
        (.lsm6dsox, .chip(.lis3mdl)), (.lsm6dsl, .chip(.lis2mdl)), (.lsm6ds3, .chip(.hmc5883l)),
        (.mpu6050, .chip(.qmc5883l)), (.mpu6500, .chip(.lis3mdl)), (.mpu9250, .none),
    ]

    /// Reads per second of scenario: a subsample that keeps the test fast. Each board reads at
    /// its own phase, so together they cover instants a single 50 Hz grid would skip (taps are short).
    static let readRate = 50.0

    @Test(arguments: boards.enumerated().map { ($0.offset, $0.element.0, $0.element.1) })
    func noNamedScenarioSaturatesAnEmulatedChipAtItsDefaultRanges(
        index: Int, imu: SimulatedBoard.IMU, magnetometer: SimulatedBoard.MagnetometerChoice
    ) throws {
        let magnetometerName: String = switch magnetometer {
        case .chip(let chip): chip.rawValue
        default: "ak8963"
        }
        let imuErrors = IMUErrorModel.preset(named: imu.rawValue) ?? .lsm6dsox
        let magnetometerErrors = MagnetometerErrorModel.preset(named: magnetometerName) ?? .lis3mdl
        let phase = Double(index) / Double(Self.boards.count) / Self.readRate
        var reads = 0
        for scenario in Scenario.all {
            let time = ManualTime(0)
            let source = ErrorModelSource(
                base: scenario.world(), imu: imuErrors, magnetometer: magnetometerErrors, seed: UInt64(index + 1),
                sampleRate: Self.readRate)
            let rig = try EmulatedRig(imu: imu, magnetometer: magnetometer, source: source, time: time)
            let magnetometerDriver = try #require(rig.magnetometer)
            var saturatedIMU = 0, saturatedField = 0
            let count = Int(scenario.script.duration * Self.readRate)
            for k in 1...count {
                time.set(Double(k) / Self.readRate + phase)
                if try rig.imu.readSample().isSaturated { saturatedIMU += 1 }
                if try magnetometerDriver.readSample().isSaturated { saturatedField += 1 }
            }
            reads += count
            #expect(saturatedIMU == 0, "\(scenario.name): \(saturatedIMU) of \(count) \(rig.imu.chip.name) samples saturated")
            #expect(saturatedField == 0, "\(scenario.name): \(saturatedField) of \(count) \(magnetometerDriver.chip.name) samples saturated")
        }
        #expect(reads > 25_000)  // every scenario played in full (about 570 s)
    }

    /// The control: the same reads do flag a specific force and a field beyond every default range.
    @Test(arguments: boards)
    func theDriversFlagSaturationBeyondTheirDefaultRanges(imu: SimulatedBoard.IMU, magnetometer: SimulatedBoard.MagnetometerChoice) throws {
        let time = ManualTime(0)
        let beyond = PhysicalState(
            time: 0, specificForce: SIMD3(0, 0, 5 * PhysicalState.standardGravity), angularRate: SIMD3(0, 0, 10),
            magneticField: SIMD3(6000, 0, 0))
        let rig = try EmulatedRig(imu: imu, magnetometer: magnetometer, source: ConstantSource(beyond), time: time)
        time.set(0.1)
        #expect(try rig.imu.readSample().isSaturated)
        #expect(try #require(rig.magnetometer).readSample().isSaturated)
    }
}
