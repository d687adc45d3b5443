import Foundation
import IIOFake
import Testing
@testable import Motion
import MotionSimulation
@testable import MotionTools

/// Doctor and the automatic choice on a Raspberry Pi whose IMU a kernel overlay owns
/// (`dtoverlay=mpu6050`), and on a laptop with only a HID accelerometer.
@Suite struct IIODoctorTests {
    /// A Pi 4 with /dev/i2c-1 and the kernel's client 1-0068 (mpu6050) bound to inv-mpu6050-i2c,
    /// and its IIO device.
    func piWithOverlay(bound: Bool = true) throws -> FakeMachine {
        let machine = try FakeMachine()
        try machine.model("Raspberry Pi 4 Model B Rev 1.4")
        try machine.file("dev/i2c-1")
        try machine.file("sys/bus/i2c/devices/1-0068/name", "mpu6050\n")
        if bound {
            try machine.directory("sys/bus/i2c/drivers/inv-mpu6050-i2c")
            try FileManager.default.createSymbolicLink(
                atPath: machine.root.appendingPathComponent("sys/bus/i2c/devices/1-0068/driver").path,
                withDestinationPath: "../../../../bus/i2c/drivers/inv-mpu6050-i2c")
        }
        for (path, value) in FakeIIODevice.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)).attributes {
            try machine.file("sys/bus/iio/devices/iio:device0/\(path)", value + "\n")
        }
        try machine.file("sys/bus/iio/devices/iio:device0/name", "mpu6050\n")
        return machine
    }

    @Test func doctorNamesTheKernelDriverAndBothWaysOut() throws {
        let machine = try piWithOverlay()
        let checks = machine.doctor().run()
        let busy = try #require(checks.first { $0.topic == .i2c && $0.status == .warning })
        #expect(busy.message == "the kernel driver inv-mpu6050-i2c holds mpu6050 at 0x68 on /dev/i2c-1: swift-motion's I2C driver cannot reach it (EBUSY)")
        let fix = try #require(busy.fix)
        #expect(fix.contains("--source iio"))
        #expect(fix.contains("dtoverlay=mpu6050"))
        #expect(fix.contains("echo 1-0068 | sudo tee /sys/bus/i2c/drivers/inv-mpu6050-i2c/unbind"))
        let iio = try #require(checks.check(.iio))
        #expect(iio.status == .ok)
        #expect(iio.message == "Linux's own driver offers mpu6050 (iio:device0): accelerometer, gyroscope; buffered: readable with --source iio (MotionSource.iio)")
    }

    @Test func theBusScanCountsTheHeldChipAsPresent() throws {
        let machine = try piWithOverlay()
        let checks = machine.doctor(scanBus: { _ in [] }).run()   // 0x68 refuses the scan: EBUSY
        let scan = try #require(checks.check(.busScan))
        #expect(scan.status == .ok)
        #expect(scan.message == "/dev/i2c-1 answers at 0x68: IMU at 0x68, no magnetometer at the usual addresses")
    }

    @Test func aDeclaredClientWithoutADriverIsBusyToo() throws {
        let machine = try piWithOverlay(bound: false)
        let busy = try #require(machine.doctor().run().first { $0.topic == .i2c && $0.status == .warning })
        #expect(busy.message.hasPrefix("the kernel declares mpu6050 at 0x68 on /dev/i2c-1 (no driver bound"))
    }

    @Test func automaticChoicePrefersIIOWhenTheKernelHoldsTheIMU() throws {
        let machine = try piWithOverlay()
        let pi = try #require(BoardCatalog.builtIn.detect(model: "Raspberry Pi 4 Model B Rev 1.4"))
        let iio = IIOSelection(root: machine.root.appendingPathComponent("sys/bus/iio/devices").path)
        let sysfs = machine.root.appendingPathComponent("sys").path
        let choice = try #require(MotionSource.choose(board: pi, bus: nil, iio: iio, sysfsRoot: sysfs))
        guard case .iio(let chosen) = choice.source else {
            Issue.record("chose \(choice.source)")
            return
        }
        #expect(chosen == iio)
        #expect(choice.reason == "the kernel driver inv-mpu6050-i2c holds mpu6050 at 0x68 on /dev/i2c-1: reading mpu6050 (iio:device0): accelerometer, gyroscope; buffered through IIO")
        // The chip free (no client): our I2C driver.
        let free = try FakeMachine()
        let freeChoice = try #require(MotionSource.choose(board: pi, bus: nil, iio: iio, sysfsRoot: free.root.appendingPathComponent("sys").path))
        guard case .board(let board, _) = freeChoice.source else {
            Issue.record("chose \(freeChoice.source)")
            return
        }
        #expect(board.id == pi.id)
        #expect(freeChoice.reason.contains("free"))
    }

    @Test func laptopWithAHIDAccelerometer() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, 0, 1000)), as: "iio:device0")
        let choice = try #require(MotionSource.choose(board: nil, bus: nil, iio: IIOSelection(root: tree.sysfs)))
        #expect(choice.reason == "not a known board; Linux's own driver offers accel_3d (iio:device0): accelerometer: reading it through IIO")
        let empty = try FakeIIOTree()
        #expect(MotionSource.choose(board: nil, bus: nil, iio: IIOSelection(root: empty.sysfs)) == nil)
    }
}
