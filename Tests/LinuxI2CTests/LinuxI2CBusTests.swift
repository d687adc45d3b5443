import Foundation
import Glibc
import I2C
import LinuxI2C
import Testing

struct LinuxI2CBusTests {
    @Test func openingAMissingBusSaysHowToEnableI2C() {
        #expect {
            _ = try LinuxI2CBus(path: "/dev/i2c-swift-motion-missing")
        } throws: { error in
            guard let error = error as? I2CError else { return false }
            return error.kind == .noSuchBus && error.bus == "/dev/i2c-swift-motion-missing"
                && error.description.contains("raspi-config") && error.description.contains("ls /dev/i2c-*")
        }
    }

    /// A path that is not an i2c-dev node is named for what it is before anything is opened:
    /// /dev/null and a terminal (as root they open fine, or fail with a misleading errno), a
    /// directory, a regular file, a named pipe.
    @Test func aPathThatIsNotAnI2CBusIsNamedForWhatItIs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("linux-i2c-\(getpid())-kinds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("file").path
        let pipe = folder.appendingPathComponent("pipe").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        #expect(mkfifo(pipe, 0o600) == 0)
        for (path, kind) in [("/dev/null", "a character device of another kind (major 1"), (folder.path, "a directory"),
                             (file, "a regular file"), (pipe, "a named pipe")] {
            let error = try #require(throws: I2CError.self) { _ = try LinuxI2CBus(path: path) }
            #expect(error.kind == .noSuchBus && error.detail.contains("\(path) is \(kind)") && error.detail.hasSuffix("not an I2C bus"), "\(error)")
            #expect(error.hint?.contains("ls /dev/i2c-*") == true)
        }
    }

    @Test func listsBusesByNumberWithAdapterNames() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("linux-i2c-\(getpid())-listing")
        defer { try? FileManager.default.removeItem(at: root) }
        let dev = root.appendingPathComponent("dev")
        let sys = root.appendingPathComponent("sys")
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        for name in ["i2c-10", "i2c-1", "i2c-2", "i2c-x", "ttyS0"] {
            _ = FileManager.default.createFile(atPath: dev.appendingPathComponent(name).path, contents: Data())
        }
        let classDir = sys.appendingPathComponent("class/i2c-dev/i2c-1")
        let busDir = sys.appendingPathComponent("bus/i2c/devices/i2c-10")
        try FileManager.default.createDirectory(at: classDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: busDir, withIntermediateDirectories: true)
        try "bcm2835 (i2c@7e804000)\n".write(to: classDir.appendingPathComponent("name"), atomically: true, encoding: .utf8)
        try "SMBus stub driver\n".write(to: busDir.appendingPathComponent("name"), atomically: true, encoding: .utf8)

        let buses = LinuxI2CBus.availableBuses(deviceDirectory: dev.path, sysfs: sys.path)
        #expect(buses.map(\.number) == [1, 2, 10])
        #expect(buses.map(\.path) == ["1", "2", "10"].map { dev.path + "/i2c-" + $0 })
        #expect(buses.map(\.adapterName) == ["bcm2835 (i2c@7e804000)", nil, "SMBus stub driver"])
    }

    @Test func noBusesInAnEmptyOrMissingDirectory() {
        #expect(LinuxI2CBus.availableBuses(deviceDirectory: "/nonexistent-swift-motion").isEmpty)
    }

    @Test func functionalityNamesItsFlags() {
        let stub: I2CFunctionality = [.smbusQuick, .smbusReadI2CBlock, .smbusWriteI2CBlock]
        #expect(stub.description == "SMBus quick, SMBus I2C-block read, SMBus I2C-block write")
        #expect(!stub.contains(.i2c))
    }
}
