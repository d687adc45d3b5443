import Foundation
import I2C
@testable import Motion
import MotionSimulation
@testable import MotionTools
import MotionSimulator
import Testing

/// `Doctor` says each found chip's wiring and pitfalls where its descriptor has them: the
/// ADXL345's CS and ALT ADDRESS pins, the MMC5983MA's 3.3 V supply and SET after power-up.
@Suite("Doctor: wiring notes")
struct WiringNotesDoctorTests {
    @Test func anADXL345AndAnMMC5983MAGetTheirNotes() throws {
        let machine = try FakeMachine()
        try machine.model("Raspberry Pi 4 Model B Rev 1.4")
        try machine.file("dev/i2c-1")
        let board = SimulatedBoard(imu: .adxl345, magnetometer: .chip(.mmc5983ma), source: ConstantSource(), now: { 0 })
        let scan: Doctor.BusScanner = { _ in [I2CAddress(0x30), I2CAddress(0x53)] }
        let open: Doctor.BusOpener = { _ in board.bus }
        let checks = Doctor(fileSystemRoot: machine.root.path, environment: ["HOME": "/home/pi"], canReadWrite: { _ in true },
                            scanBus: scan, openBus: open).run()
        let scans = checks.filter { $0.topic == .busScan }.map(\.message)
        #expect(scans.count == 4, "\(scans)")
        #expect(scans.contains { $0.hasPrefix("ADXL345 at 0x53: CS must be high for I2C") && $0.contains("0x1D") })
        #expect(scans.contains { $0.hasPrefix("MMC5983MA at 0x30: a 3.3 V part") && $0.contains("SET") })
        #expect(checks.filter { $0.topic == .busScan }.allSatisfy { $0.status == .ok })
    }
}
