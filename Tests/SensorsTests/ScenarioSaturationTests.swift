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

    /// Reads per second of a gentle scenario: one whose truth, scanned at 200 Hz, stays
    /// under 1.3 g, 60 °/s and 100 µT on every axis — far inside the smallest full scales (±2 g,
    /// ±250 °/s, the HMC5883L's ±130 µT) with every chip's errors — such as the long barometric
    /// ones (10 min of weather, 6 min up a hill). Their reads still go through every chip.
    static let gentleReadRate = 5.0

    /// ``readRate`` or ``gentleReadRate`` for each scenario, by name.
    static let readRates: [String: Double] = Dictionary(uniqueKeysWithValues: Scenario.all.map { scenario in
        let world = scenario.world()
        var gentle = true
        var t = 0.0
        while gentle, t < scenario.script.duration {
            let truth = world.truth(at: t)
            func largest(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }
            gentle = largest(truth.specificForce) < 1.3 * PhysicalState.standardGravity
                && largest(truth.angularRate) < 60 * .pi / 180 && largest(truth.magneticField) < 100
            t += 1 / 200
        }
        return (scenario.name, gentle ? gentleReadRate : readRate)
    })

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
        var reads = 0
        for scenario in Scenario.all {
            let readRate = try #require(Self.readRates[scenario.name])
            let phase = Double(index) / Double(Self.boards.count) / readRate
            let time = ManualTime(0)
            let source = ErrorModelSource(
                base: scenario.world(), imu: imuErrors, magnetometer: magnetometerErrors, seed: UInt64(index + 1),
                sampleRate: readRate)
            let rig = try EmulatedRig(imu: imu, magnetometer: magnetometer, source: source, time: time)
            let magnetometerDriver = try #require(rig.magnetometer)
            var saturatedIMU = 0, saturatedField = 0
            let count = Int(scenario.script.duration * readRate)
            for k in 1...count {
                time.set(Double(k) / readRate + phase)
                if try rig.imu.readSample().isSaturated { saturatedIMU += 1 }
                if try magnetometerDriver.readSample().isSaturated { saturatedField += 1 }
            }
            reads += count
            #expect(saturatedIMU == 0, "\(scenario.name): \(saturatedIMU) of \(count) \(rig.imu.chip.name) samples saturated")
            #expect(saturatedField == 0, "\(scenario.name): \(saturatedField) of \(count) \(magnetometerDriver.chip.name) samples saturated")
        }
        // Every scenario played in full; the vigorous ones at the full rate.
        #expect(reads > 25_000)
        let vigorous = ["tap", "shake-portrait", "tumble", "magnet-passing", "magnet-attached", "run"]
        #expect(vigorous.allSatisfy { Self.readRates[$0] == Self.readRate },
                "gentle: \(Self.readRates.filter { $0.value < Self.readRate }.keys.sorted())")
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
