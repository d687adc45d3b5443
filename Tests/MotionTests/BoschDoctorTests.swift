import Foundation
import I2C
@testable import Motion
import MotionSimulation
@testable import MotionTools
import MotionSimulator
import Testing

/// `Doctor` names the wiring pitfalls of the chips it finds: the BMI270's configuration-file upload
/// and SPI-select pin, the BMM150's power bit and address pins.
@Suite("Doctor: BMI270 and BMM150 notes")
struct BoschDoctorTests {
    @Test("a BMI270 with a BMM150: one note each, after the identity reads")
    func notesForTheBoschPair() throws {
        let machine = try FakeMachine()
        try machine.model("Raspberry Pi 4 Model B Rev 1.4")
        try machine.file("dev/i2c-1")
        let board = SimulatedBoard(imu: .bmi270, magnetometer: .chip(.bmm150), source: ConstantSource(), now: { 0 })
        #expect(board.magnetometerAddress == I2CAddress(0x10))
        let scan: Doctor.BusScanner = { _ in [I2CAddress(0x10), I2CAddress(0x68)] }
        let open: Doctor.BusOpener = { _ in board.bus }
        let checks = Doctor(fileSystemRoot: machine.root.path, environment: ["HOME": "/home/pi"], canReadWrite: { _ in true },
                            scanBus: scan, openBus: open).run().filter { $0.topic == .busScan }
        #expect(checks.map(\.status) == [.ok, .ok, .ok, .ok])
        #expect(checks[0].message == "/dev/i2c-1 answers at 0x10 0x68: IMU at 0x68, magnetometer at 0x10")
        #expect(checks[1].message == "40 of 40 identity reads of the BMI270 at 0x68 on /dev/i2c-1 were right")
        #expect(checks[2].message.hasPrefix("BMI270 at 0x68: the BMI270 runs only once Bosch's configuration file is loaded"))
        #expect(checks[2].message.contains("INIT_ADDR") && checks[2].message.contains("CSB"))
        #expect(checks[3].message.hasPrefix("BMM150 at 0x10: the BMM150 powers up suspended"))
        #expect(checks[3].message.contains("0x4B bit 0") && checks[3].message.contains("SDO and CSB2"))
    }
}
