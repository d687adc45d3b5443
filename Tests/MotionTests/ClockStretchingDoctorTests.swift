import Foundation
import I2C
@testable import Motion
import MotionSimulation
@testable import MotionTools
import MotionSimulator
import Testing

/// `Doctor` reads each IMU's identity repeatedly after the scan: a BNO055 that a Raspberry Pi's
/// I2C controller reads wrongly now and then (the simulated clock-stretching symptom: every
/// N-th read returns 0xFF bytes) gets the Pi's fix.
@Suite("Doctor: clock stretching")
struct ClockStretchingDoctorTests {
    func checks(model: String, stretchedReadEvery: Int?) throws -> [DoctorCheck] {
        let machine = try FakeMachine()
        try machine.model(model)
        try machine.file("dev/i2c-1")
        let board = SimulatedBoard(imu: .bno055, source: ConstantSource(), now: { 0 },
                                   imuOptions: EmulatorOptions(stretchedReadEvery: stretchedReadEvery))
        let scan: Doctor.BusScanner = { _ in [I2CAddress(0x28)] }
        let open: Doctor.BusOpener = { _ in board.bus }
        return Doctor(fileSystemRoot: machine.root.path, environment: ["HOME": "/home/pi"], canReadWrite: { _ in true },
                      scanBus: scan, openBus: open).run()
    }

    @Test("intermittent identity reads of a BNO055 on a Raspberry Pi: the Pi's fix")
    func stretchingOnARaspberryPi() throws {
        let checks = try checks(model: "Raspberry Pi 4 Model B Rev 1.4", stretchedReadEvery: 4)
        let scans = checks.filter { $0.topic == .busScan }
        #expect(scans.map(\.status) == [.ok, .warning])
        let warning = try #require(scans.last)
        #expect(warning.message == "30 of 40 identity reads of the BNO055 at 0x28 on /dev/i2c-1 were right (10 wrong, 0 failed): "
            + "the bus corrupts transfers now and then")
        let fix = try #require(warning.fix)
        #expect(fix.contains("dtparam=i2c_arm_baudrate=10000"))
        #expect(fix.contains("/boot/firmware/config.txt"))
        #expect(fix.contains("dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=2,i2c_gpio_scl=3"))
    }

    @Test("a healthy bus: every identity read right, no warning")
    func healthyBus() throws {
        let scans = try checks(model: "Raspberry Pi 4 Model B Rev 1.4", stretchedReadEvery: nil).filter { $0.topic == .busScan }
        #expect(scans.map(\.status) == [.ok, .ok])
        #expect(scans.last?.message == "40 of 40 identity reads of the BNO055 at 0x28 on /dev/i2c-1 were right")
    }

    @Test("on another board the advice is generic: slow the bus or use a controller that waits")
    func stretchingElsewhere() throws {
        let checks = try checks(model: "NVIDIA Jetson Nano Developer Kit", stretchedReadEvery: 5)
        let warning = try #require(checks.last { $0.topic == .busScan })
        #expect(warning.status == .warning)
        #expect(warning.message.hasPrefix("32 of 40 identity reads"))
        #expect(warning.fix?.contains("10 kHz") == true)
        #expect(warning.fix?.contains("dtparam") == false)
    }
}
