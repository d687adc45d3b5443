import Foundation
import I2C
import Testing
@testable import Motion
import MotionSimulation
@testable import MotionTools

/// A fake filesystem root for `Doctor`, removed when the test ends.
final class FakeMachine {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    func file(_ path: String, _ contents: String = "") throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    func directory(_ path: String) throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
    }

    func model(_ model: String) throws {
        try file("proc/device-tree/model", model + "\0")
    }

    /// A Raspberry Pi 4 by its device-tree model, with the empty files `files` (its I2C device nodes).
    static func raspberryPi4(files: String...) throws -> FakeMachine {
        let machine = try FakeMachine()
        try machine.model("Raspberry Pi 4 Model B Rev 1.4")
        for path in files { try machine.file(path) }
        return machine
    }

    func doctor(
        environment: [String: String] = ["HOME": "/home/pi"], board: Board? = nil,
        canReadWrite: @escaping @Sendable (String) -> Bool = { _ in true }, scanBus: Doctor.BusScanner? = nil
    ) -> Doctor {
        Doctor(fileSystemRoot: root.path, environment: environment, board: board, canReadWrite: canReadWrite, scanBus: scanBus)
    }
}

extension [DoctorCheck] {
    func check(_ topic: DoctorCheck.Topic) -> DoctorCheck? {
        first { $0.topic == topic }
    }

    /// The check on `topic`, whose status must be `status`; the test stops when there is none.
    func check(_ topic: DoctorCheck.Topic, is status: DoctorCheck.Status, sourceLocation: SourceLocation = #_sourceLocation) throws -> DoctorCheck {
        let found = try #require(self.check(topic), sourceLocation: sourceLocation)
        #expect(found.status == status, sourceLocation: sourceLocation)
        return found
    }
}

@Suite("Doctor")
struct BoardDoctorTests {
    @Test("a machine without device tree or I2C: no known board, no bus, and how to enable it")
    func bareMachine() throws {
        let machine = try FakeMachine()
        let checks = machine.doctor().run()
        #expect(checks.map(\.topic) == [.board, .i2c, .iio, .calibration])
        let board = try checks.check(.board, is: .warning)
        #expect(board.message.contains("not a device-tree machine"))
        let i2c = try checks.check(.i2c, is: .error)
        #expect(i2c.message == "no I2C bus: there is no /dev/i2c-* device node on this machine")
        #expect(i2c.fix?.contains("modprobe i2c-dev") == true)
        #expect(i2c.fix?.contains("raspi-config nonint do_i2c 0") == true)
    }

    @Test("a Raspberry Pi 4 without I2C enabled is named, and the fix is its setup note")
    func raspberryPiWithoutI2C() throws {
        let machine = try FakeMachine.raspberryPi4()
        try machine.directory("dev")
        let checks = machine.doctor().run()
        let board = try checks.check(.board, is: .ok)
        #expect(board.message.contains("Raspberry Pi 4 Model B (raspberry-pi-4b)"))
        let i2c = try checks.check(.i2c, is: .error)
        #expect(i2c.fix?.contains("dtparam=i2c_arm=on") == true)
        #expect(i2c.fix?.contains("dtparam=i2c_arm_baudrate=400000") == true)
    }

    /// One fact on an otherwise bare machine, and what the check it concerns must say.
    struct Finding: Sendable {
        var fact: @Sendable (FakeMachine) throws -> Void
        var topic: DoctorCheck.Topic
        var status: DoctorCheck.Status
        var message: String
        var fix: String
    }

    @Test("adapters without device nodes mean i2c-dev is not loaded; an unknown model is reported with how to describe the board",
          arguments: [
              Finding(fact: { try $0.directory("sys/class/i2c-adapter/i2c-1") }, topic: .i2c, status: .error,
                      message: "i2c-dev module is not loaded", fix: "sudo modprobe i2c-dev"),
              Finding(fact: { try $0.model("Acme Widget Board") }, topic: .board, status: .warning,
                      message: "device-tree model \"Acme Widget Board\" is not a known board", fix: "--board FILE"),
          ])
    func oneFinding(_ finding: Finding) throws {
        let machine = try FakeMachine()
        try finding.fact(machine)
        let check = try machine.doctor().run().check(finding.topic, is: finding.status)
        #expect(check.message.contains(finding.message))
        #expect(check.fix?.contains(finding.fix) == true)
    }

    @Test("the board's header bus present and openable")
    func busPresentAndOpenable() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1", "dev/i2c-20")
        let checks = machine.doctor().run()
        let i2c = try checks.check(.i2c, is: .ok)
        #expect(i2c.message.hasPrefix("/dev/i2c-1 is present (SDA pin 3"))
        #expect(i2c.message.hasSuffix("also /dev/i2c-20"))
        let permissions = try checks.check(.permissions, is: .ok)
        #expect(permissions.message == "this user may read and write /dev/i2c-1")
        #expect(!checks.contains { $0.status == .error })
    }

    @Test("a node this user may not open: error with the group fix")
    func permissionDenied() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1")
        let permissions = try machine.doctor(canReadWrite: { _ in false }).run().check(.permissions, is: .error)
        #expect(permissions.message.contains("/dev/i2c-1"))
        #expect(permissions.fix?.contains("usermod -aG i2c") == true)
    }

    @Test("I2C on, but not the header bus: warning with the setup note")
    func wrongBus() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-20")
        let board = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b"))
        let i2c = try machine.doctor().run().check(.i2c, is: .warning)
        #expect(i2c.message.contains("/dev/i2c-1"))
        #expect(i2c.fix == board.setup)
    }

    @Test("the bus scan hook: IMU and magnetometer found, nothing found, scan failed")
    func busScan() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1")
        let found = try machine.doctor(scanBus: { _ in [I2CAddress(0x1E), I2CAddress(0x68)] }).run().check(.busScan, is: .ok)
        #expect(found.message == "/dev/i2c-1 answers at 0x1E 0x68: IMU at 0x68, magnetometer at 0x1E")
        let withBarometer = try machine.doctor(scanBus: { _ in [I2CAddress(0x1E), I2CAddress(0x68), I2CAddress(0x76)] }).run().check(.busScan, is: .ok)
        #expect(withBarometer.message == "/dev/i2c-1 answers at 0x1E 0x68 0x76: IMU at 0x68, magnetometer at 0x1E, barometer at 0x76")
        let nothing = try machine.doctor(scanBus: { _ in [] }).run().check(.busScan, is: .warning)
        #expect(nothing.fix?.contains("SDA to pin 3, SCL to pin 5") == true)
        let other = try machine.doctor(scanBus: { _ in [I2CAddress(0x40)] }).run().check(.busScan, is: .warning)
        #expect(other.message.contains("not at an IMU address"))
        let failing = machine.doctor(scanBus: { device throws(I2CError) in
            throw I2CError(.timeout, bus: device, detail: "SMBus quick write", hint: "check for a stuck SDA line")
        })
        let failed = try failing.run().check(.busScan, is: .error)
        #expect(failed.message.contains("timeout"))
        #expect(failed.fix == "check for a stuck SDA line")
    }

    @Test("no scan when the node cannot be opened, and none without a scanner")
    func scanOnlyWhenOpenable() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1")
        #expect(machine.doctor(canReadWrite: { _ in false }, scanBus: { _ in [] }).run().check(.busScan) == nil)
        #expect(machine.doctor().run().check(.busScan) == nil)
    }

    /// In the calibration store's directory itself (not one level up, where no calibration is
    /// ever saved).
    @Test("calibration files are found under XDG_CONFIG_HOME, else ~/.config")
    func calibrationPresence() throws {
        let machine = try FakeMachine()
        let none = try machine.doctor().run().check(.calibration, is: .warning)
        #expect(none.message == "no calibration files in /home/pi/.config/swift-motion/calibration")
        try machine.file("home/pi/.config/swift-motion/calibration/raspberry-pi-4b_MPU-6050_-dev-i2c-1_0x68.json", "{}")
        let home = try machine.doctor().run().check(.calibration, is: .ok)
        #expect(home.message.hasPrefix("1 calibration file(s) in /home/pi/.config/swift-motion/calibration:"))
        let xdg = try #require(machine.doctor(environment: ["HOME": "/home/pi", "XDG_CONFIG_HOME": "/xdg"]).run().check(.calibration))
        #expect(xdg.message == "no calibration files in /xdg/swift-motion/calibration")
    }

    @Test("a board given by the user is used instead of detection")
    func givenBoard() throws {
        let machine = try FakeMachine.raspberryPi4()
        let jetson = try #require(BoardCatalog.builtIn.board(id: "jetson-nano"))
        let checks = machine.doctor(board: jetson).run()
        #expect(checks.check(.board)?.message.hasPrefix("NVIDIA Jetson Nano Developer Kit (jetson-nano)") == true)
        #expect(checks.check(.i2c)?.fix == "NVIDIA Jetson Nano Developer Kit: \(jetson.setup)")
    }
}
