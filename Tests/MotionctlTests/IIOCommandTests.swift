import Foundation
import IIOFake
import Testing

/// `motionctl` against fake IIO trees: probe lists the devices, `--source iio` streams from them.
@Suite("motionctl with IIO")
struct IIOCommandTests {
    @Test func probeListsAnIIOAccelerometer() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, 0, -1000)), as: "iio:device0")
        try tree.add(.lsm6dsox(accel: (0, 0, 0)), as: "iio:device2")
        try tree.add(.lsm6dsoxGyro((0, 0, 0)), as: "iio:device3")
        let result = try BoardsCommandTests.run(["probe", "--iio-root", tree.sysfs])
        #expect(result.status == 0)
        #expect(result.output == """
            IIO (Linux's own sensor drivers) at \(tree.sysfs): 3 motion device(s)
              iio:device0  accel_3d: accelerometer at 10 Hz
              iio:device2  lsm6dsox_accel: accelerometer at 104 Hz
              iio:device3  lsm6dsox_gyro: gyroscope at 104 Hz
              --source iio reads lsm6dsox_accel (iio:device2): accelerometer + lsm6dsox_gyro (iio:device3): gyroscope

            """)
    }

    @Test func streamsFromIIOInCoreMotionUnits() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, 0, 1000), scale: "0.00980665"), as: "iio:device0")
        let result = try BoardsCommandTests.run(["stream", "--source", "iio", "--iio-root", tree.sysfs, "--count", "3", "--format", "csv"])
        #expect(result.status == 0, "\(result.error)")
        let rows = result.output.split(separator: "\n").map(String.init)
        #expect(rows.first == "timestamp_s,acc_x_g,acc_y_g,acc_z_g,rot_x_rad_s,rot_y_rad_s,rot_z_rad_s")
        #expect(rows.count == 4)
        // +1000 × 0.00980665 m/s² of specific force on z (face up) is −1 g here.
        #expect(rows.dropFirst().allSatisfy { $0.hasSuffix(",0.000000,0.000000,-1.000000,0.000000,0.000000,0.000000") })
    }

    @Test func iioExcludesBoardOptions() throws {
        let result = try BoardsCommandTests.run(["stream", "--source", "iio", "--bus", "1"])
        #expect(result.status != 0)
        #expect(result.error.contains("--source iio"))
    }
}
