import Foundation
import TestSupport
import Testing

/// Runs the built `motionctl` and compares its output.
@Suite("motionctl boards and doctor")
struct BoardsCommandTests {
    /// The `motionctl` built next to the test bundle.
    static func motionctl() throws -> URL { try builtExecutable("motionctl") }

    /// The package's executable `name` built next to the test bundle (`swift test` builds them all).
    static func builtExecutable(_ name: String) throws -> URL { try TestSupport.builtExecutable(name) }

    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String, error: String) {
        try runToEnd(try motionctl(), arguments, environment: environment)
    }

    @Test("boards lists every built-in board with its default bus and addresses")
    func list() throws {
        let result = try Self.run(["boards"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.count == 13)
        let senseHat = try #require(lines.first { $0.hasPrefix("raspberry-pi-4b-sense-hat ") })
        #expect(senseHat.contains("/dev/i2c-1") && senseHat.contains("0x6A") && senseHat.contains("0x1C"))
        let pi = try #require(lines.first { $0.hasPrefix("raspberry-pi-4b ") })
        #expect(pi.contains("Raspberry Pi 4 Model B"))
        #expect(pi.contains("/dev/i2c-1"))
        #expect(pi.contains("0x68 0x69 0x6A 0x6B"))
        let beagle = try #require(lines.first { $0.hasPrefix("beaglebone-black ") })
        #expect(beagle.contains("/dev/i2c-2"))
    }

    @Test("boards show prints the pins and the setup note; an unknown id fails with the known ids")
    func show() throws {
        let result = try Self.run(["boards", "show", "jetson-orin-nano"])
        #expect(result.status == 0)
        #expect(result.output.contains("/dev/i2c-7 (default): SDA pin 3"))
        #expect(result.output.contains("setup: "))
        let unknown = try Self.run(["boards", "show", "commodore-64"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("no board with id \"commodore-64\""))
        #expect(unknown.error.contains("raspberry-pi-5"))
    }

    @Test("boards validate names the file and the key of a broken board file")
    func validate() throws {
        try withTemporaryDirectory("cli") { directory in
            let file = directory.appendingPathComponent("my-board.json")
            try Data("""
                {"name": "Mine", "id": "my-board", "match": [], "i2cBuses": [], "imuAddresses": ["0x68"],
                 "magnetometerAddresses": [], "mountMatrix": [1,0,0, 0,1,0, 0,0,1], "setup": "none"}
                """.utf8).write(to: file)
            let result = try Self.run(["boards", "validate", file.path])
            #expect(result.status == 1)
            #expect(result.error.contains("\(file.path): i2cBuses: the bus list is empty. Fix: "))
        }
    }

    @Test("doctor on a machine without I2C says there is no bus and what to do, and exits 1")
    func doctorWithoutI2C() throws {
        let result = try withTemporaryDirectory("cli-root") { root in
            try Self.run(["doctor", "--root", root.path], environment: ["HOME": "/home/test", "PATH": "/usr/bin:/bin"])
        }
        #expect(result.status == 1)
        #expect(result.output.contains("[error] I2C: no I2C bus: there is no /dev/i2c-* device node on this machine"))
        #expect(result.output.contains("fix: enable the I2C controller"))
        #expect(result.output.contains("[warning] board: not a device-tree machine"))
        #expect(result.output.contains("[warning] calibration: no calibration files in /home/test/.config/swift-motion"))
    }
}
