import Foundation
import I2C
import Testing
@testable import Motion
@testable import MotionTools

/// `doctor` on SPI: how to turn it on on a Pi, the devices and who may use them, and a board
/// file's SPI IMU whose device is missing.
@Suite struct SPIDoctorTests {
    @Test func aRaspberryPiWithoutSPISaysHowToEnableIt() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1")
        let spi = try machine.doctor().run().check(.spi, is: .ok)
        #expect(spi.message.contains("no /dev/spidev*"))
        #expect(spi.message.contains("dtparam=spi=on") && spi.message.contains("raspi-config nonint do_spi 0"), "\(spi.message)")
    }

    @Test func devicesAreListedAndPermissionsChecked() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1", "dev/spidev0.0", "dev/spidev0.1")
        let spi = try machine.doctor().run().check(.spi, is: .ok)
        #expect(spi.message.contains("/dev/spidev0.0, /dev/spidev0.1"))
        let denied = try machine.doctor(canReadWrite: { !$0.contains("spidev") }).run().check(.spi, is: .warning)
        #expect(denied.fix?.contains("usermod -aG spi") == true)
    }

    @Test func aBoardFilesSPIIMUWithoutItsDeviceIsAnError() throws {
        let machine = try FakeMachine.raspberryPi4(files: "dev/i2c-1")
        var board = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b"))
        board.imus = [IMUPlacement(.spi(device: "/dev/spidev0.1"), chip: "ICM-42688-P")]
        let spi = try machine.doctor(board: board).run().check(.spi, is: .error)
        #expect(spi.message.contains("/dev/spidev0.1"))
        #expect(spi.fix?.contains("dtparam=spi=on") == true)
    }

    @Test func elsewhereNothingIsSaidOfSPI() throws {
        let machine = try FakeMachine()
        #expect(machine.doctor().run().check(.spi) == nil)
    }
}
