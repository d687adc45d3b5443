import Glibc
import I2C
import LinuxI2C
import Testing

struct ErrnoMappingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var code: Int32
        var stage: LinuxI2CBus.Stage
        var kind: I2CError.Kind
        /// Words the detail or hint must contain, so a person knows what to do.
        var keyWords: [String]
        var testDescription: String { "errno \(code) during \(stage) → \(kind.rawValue)" }
    }

    static let cases: [Case] = [
        Case(code: ENOENT, stage: .open, kind: .noSuchBus,
             keyWords: ["/dev/i2c-1 does not exist", "raspi-config nonint do_i2c 0", "dtparam=i2c_arm=on",
                        "/boot/firmware/config.txt", "reboot", "ls /dev/i2c-*"]),
        Case(code: ENODEV, stage: .open, kind: .noSuchBus, keyWords: ["raspi-config"]),
        Case(code: EACCES, stage: .open, kind: .permissionDenied,
             keyWords: ["sudo usermod -aG i2c $USER", "log out"]),
        Case(code: EPERM, stage: .transfer, kind: .permissionDenied, keyWords: ["i2c group"]),
        Case(code: ENXIO, stage: .transfer, kind: .noAcknowledge,
             keyWords: ["no device acknowledged at 0x68 on /dev/i2c-1", "wiring", "address", "motionctl probe"]),
        Case(code: EREMOTEIO, stage: .transfer, kind: .noAcknowledge,
             keyWords: ["no device acknowledged at 0x68 on /dev/i2c-1", "wiring"]),
        Case(code: ENODEV, stage: .transfer, kind: .noAcknowledge,
             keyWords: ["no device acknowledged at 0x68 on /dev/i2c-1", "0x69"]),
        Case(code: ETIMEDOUT, stage: .transfer, kind: .timeout, keyWords: ["pull-up", "power-cycle"]),
        Case(code: EOPNOTSUPP, stage: .transfer, kind: .notSupported, keyWords: ["cannot do this kind of transfer"]),
        Case(code: EIO, stage: .transfer, kind: .busError, keyWords: ["pull-up", "wiring"]),
        Case(code: EAGAIN, stage: .transfer, kind: .busError, keyWords: ["retry"]),
        Case(code: EPROTO, stage: .transfer, kind: .busError, keyWords: ["wiring"]),
        Case(code: EINVAL, stage: .transfer, kind: .invalidArgument, keyWords: ["rejected the request"]),
        Case(code: EBUSY, stage: .transfer, kind: .other, keyWords: ["kernel driver", "unbind"]),
        Case(code: ENOTTY, stage: .transfer, kind: .other, keyWords: ["not an I2C bus", "ENOTTY"]),
        Case(code: EMFILE, stage: .open, kind: .other, keyWords: ["open failed"]),
        Case(code: ENOENT, stage: .transfer, kind: .other, keyWords: ["SMBus receive byte failed"]),
    ]

    @Test(arguments: cases)
    func mapsErrnoToKindAndHint(_ testCase: Case) {
        let address: I2CAddress? = testCase.stage == .transfer ? I2CAddress(0x68) : nil
        let attempted = testCase.stage == .open ? "open" : "SMBus receive byte"
        let error = LinuxI2CBus.error(
            errno: testCase.code, stage: testCase.stage, bus: "/dev/i2c-1", address: address, attempted: attempted)
        #expect(error.kind == testCase.kind)
        #expect(error.errno == testCase.code)
        #expect(error.bus == "/dev/i2c-1")
        #expect(error.address == address)
        let text = error.description
        for word in testCase.keyWords {
            #expect(text.contains(word), "\(word) missing from: \(text)")
        }
    }

    @Test func everyKindButOtherHasAHint() {
        for testCase in Self.cases where testCase.kind != .other {
            let error = LinuxI2CBus.error(errno: testCase.code, stage: testCase.stage, bus: "/dev/i2c-1", attempted: "x")
            #expect(error.hint?.isEmpty == false, "\(testCase.testDescription)")
        }
    }

    @Test func detailNamesTheSymbolicErrno() {
        let error = LinuxI2CBus.error(errno: ENXIO, stage: .transfer, bus: "/dev/i2c-1", address: I2CAddress(0x1E),
                                      attempted: "SMBus read byte data from register 0x0A")
        #expect(error.detail.contains("ENXIO"))
        #expect(error.detail.contains("register 0x0A"))
        #expect(error.detail.contains("at 0x1E"))
    }
}
