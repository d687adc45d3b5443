import Foundation
import I2C
@testable import Motion
import MotionSimulation
@testable import MotionTools
import MotionSimulator
import Testing

/// `Doctor` on a BNO08x that a Raspberry Pi's I2C controller misreads now and then (the simulated
/// stretched clock: every N-th read returns 0xFF bytes): its Product ID exchanges go wrong some of
/// the time, and the advice names the Pi's fixes and the hub's other interfaces.
@Suite("Doctor: BNO08x clock stretching")
struct BNO08xDoctorTests {
    func checks(model: String, stretchedReadEvery: Int?) throws -> [DoctorCheck] {
        let machine = try FakeMachine()
        try machine.model(model)
        try machine.file("dev/i2c-1")
        let board = SimulatedBoard(imu: .bno08x, source: ConstantSource(), now: { 0 },
                                   imuOptions: EmulatorOptions(stretchedReadEvery: stretchedReadEvery))
        let scan: Doctor.BusScanner = { _ in [I2CAddress(0x4A)] }
        let open: Doctor.BusOpener = { _ in board.bus }
        return Doctor(fileSystemRoot: machine.root.path, environment: ["HOME": "/home/pi"], canReadWrite: { _ in true },
                      scanBus: scan, openBus: open).run()
    }

    @Test("a stretched clock on a Raspberry Pi: a warning with the bus speed, i2c-gpio, SPI and UART-RVC")
    func stretchingOnARaspberryPi() throws {
        let scans = try checks(model: "Raspberry Pi 4 Model B Rev 1.4", stretchedReadEvery: 5).filter { $0.topic == .busScan }
        #expect(scans.map(\.status) == [.ok, .warning])
        let warning = try #require(scans.last)
        #expect(warning.message.contains("identity reads of the BNO08x at 0x4A on /dev/i2c-1 were right"), "\(warning.message)")
        #expect(warning.message.hasSuffix("the bus corrupts transfers now and then"), "\(warning.message)")
        let fix = try #require(warning.fix)
        for advice in ["dtparam=i2c_arm_baudrate=10000", "dtoverlay=i2c-gpio", "SPI with PS0 and PS1 high", "UART-RVC with PS0 high and PS1 low"] {
            #expect(fix.contains(advice), "\(advice): \(fix)")
        }
    }

    @Test("a healthy bus: every Product ID exchange right, no warning")
    func healthyBus() throws {
        let scans = try checks(model: "Raspberry Pi 4 Model B Rev 1.4", stretchedReadEvery: nil).filter { $0.topic == .busScan }
        #expect(scans.map(\.status) == [.ok, .ok])
        #expect(scans.last?.message == "40 of 40 identity reads of the BNO08x at 0x4A on /dev/i2c-1 were right")
    }
}
