import ArgumentParser
import I2C
import Motion
import MotionSimulation
import MotionTools
import Testing
@testable import motionctl

struct ProbeCommandTests {
    @Test func busAndSimulatedExcludeEachOther() {
        #expect(throws: (any Error).self) {
            _ = try Motionctl.parseAsRoot(["probe", "--bus", "/dev/i2c-1", "--simulated"])
        }
    }

    @Test func parsesABusPath() throws {
        let command = try #require(try Motionctl.parseAsRoot(["probe", "--bus", "/dev/i2c-1"]) as? ProbeCommand)
        #expect(command.bus == "/dev/i2c-1")
        #expect(!command.simulated)
    }

    @Test func aMissingBusFailsTheCommand() throws {
        let command = try ProbeCommand.parse(["--bus", "/dev/i2c-swift-motion-missing"])
        #expect(throws: ExitCode.failure) { try command.run() }
    }

    @Test func theReportNamesChipsAndMarksUnknownDevices() {
        let text = ProbeCommand.report(busName: "/dev/i2c-1", results: [
            ProbeResult(address: I2CAddress(0x1C), chipName: "LIS3MDL"), ProbeResult(address: I2CAddress(0x50)),
        ])
        #expect(text == """
            /dev/i2c-1: 2 device(s) answered
              0x1C  LIS3MDL
              0x50  unknown device (not a supported chip)
            """)
    }

    @Test func aLIS3MDLNextToAnLSM9DS1IsNamedAsItsMagnetometer() {
        let alone = ProbeCommand.report(busName: "b", results: [ProbeResult(address: I2CAddress(0x1E), chipName: "LIS3MDL")])
        #expect(alone.hasSuffix("0x1E  LIS3MDL"))
        let paired = ProbeCommand.report(busName: "b", results: [
            ProbeResult(address: I2CAddress(0x1E), chipName: "LIS3MDL"), ProbeResult(address: I2CAddress(0x6B), chipName: "LSM9DS1"),
        ])
        #expect(paired.contains("0x1E  LSM9DS1 magnetometer (LIS3MDL registers; the LSM9DS1 at 0x6B)"), "\(paired)")
    }

    @Test func anAKMChipWhereA9AxisIMUKeepsItsMagnetometerIsThatOne() {
        // An MPU-9150 whose bypass a driver left open: its AK8975 answers with the AK8963's WIA.
        let text = ProbeCommand.report(busName: "b", results: [
            ProbeResult(address: I2CAddress(0x0C), chipName: "AK8963"), ProbeResult(address: I2CAddress(0x69), chipName: "MPU-9150"),
        ])
        #expect(text.contains("0x0C  AK8975 (inside the MPU-9150 at 0x69; its I2C bypass is open)"), "\(text)")
        #expect(!text.contains("behind its I2C bypass"))
        let alone = ProbeCommand.report(busName: "b", results: [ProbeResult(address: I2CAddress(0x0C), chipName: "AK8963")])
        #expect(alone.hasSuffix("0x0C  AK8963"))
    }

    @Test func simulatedChoicesAreChecked() {
        #expect(throws: (any Error).self) { _ = try Motionctl.parseAsRoot(["probe", "--simulated", "--imu", "bmi088"]) }
        #expect((try? Motionctl.parseAsRoot(["probe", "--simulated", "--imu", "mpu6050"])) is ProbeCommand)
    }
}
