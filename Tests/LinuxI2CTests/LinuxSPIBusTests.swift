import Foundation
import I2C
import LinuxI2C
import Testing

/// What `LinuxSPIBus` says without SPI hardware: which device, what is wrong, what to do.
@Suite struct LinuxSPIBusTests {
    /// The error opening `path` threw; nil when it opened.
    private func openingError(_ path: String) -> I2CError? {
        do { _ = try LinuxSPIBus(path: path) } catch { return error }
        return nil
    }

    @Test func aMissingDeviceSaysHowToEnableSPI() throws {
        let error = try #require(openingError("/dev/spidev9.7"))
        #expect(error.kind == .noSuchBus)
        #expect(error.bus == "/dev/spidev9.7")
        #expect(error.errno == ENOENT)
        #expect(error.description.contains("/dev/spidev9.7 does not exist"))
        #expect(error.hint?.contains("dtparam=spi=on") == true)
        #expect(error.hint?.contains("raspi-config nonint do_spi 0") == true)
    }

    @Test func somethingElseIsNamedForWhatItIs() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-spidev-\(getpid())").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        for path in [file, "/dev/null", FileManager.default.temporaryDirectory.path] {
            let error = try #require(openingError(path))
            #expect(error.kind == .noSuchBus, "\(path)")
            #expect(error.description.contains("is not an SPI device"), "\(path): \(error)")
        }
        #expect(openingError("")?.kind == .noSuchBus)
    }

    /// errno → the bus layer's kinds, as on I2C.
    @Test(arguments: [
        (EACCES, I2CError.Kind.permissionDenied), (EPERM, .permissionDenied), (ETIMEDOUT, .timeout), (EIO, .busError),
        (EINVAL, .invalidArgument), (EMSGSIZE, .invalidArgument), (ENOTTY, .notSupported), (ENOSPC, .other),
    ])
    func errnoKinds(code: Int32, kind: I2CError.Kind) {
        let error = LinuxSPIBus.error(errno: code, opening: false, device: "/dev/spidev0.0", attempted: "SPI_IOC_MESSAGE of 2 bytes")
        #expect(error.kind == kind)
        #expect(error.errno == code)
        #expect(error.description.hasPrefix("/dev/spidev0.0: "))
    }

    @Test func permissionSaysWhichGroup() {
        let error = LinuxSPIBus.error(errno: EACCES, opening: true, device: "/dev/spidev0.0", attempted: "open")
        #expect(error.hint?.contains("usermod -aG spi") == true)
    }
}
