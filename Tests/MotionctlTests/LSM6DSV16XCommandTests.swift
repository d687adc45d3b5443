import Foundation
import Testing

/// `--imu lsm6dsv16x` (and its alias `lsm6dsv`) through the built `motionctl`: the probe names the
/// chip, a stream at rest reads gravity through the timer and through the FIFO, and device motion
/// streams.
struct LSM6DSV16XCommandTests {
    @Test(arguments: ["lsm6dsv16x", "lsm6dsv"])
    func probeListsTheLSM6DSV16X(name: String) throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", name])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(Array(lines.dropFirst()) == ["  0x1C  LIS3MDL", "  0x6A  LSM6DSV16X/LSM6DSV", "  0x76  BMP280"])
    }

    /// 100 raw samples on the `rest` scenario, by the timer and from the FIFO: 1 g ± 2 %, down.
    @Test(arguments: [[], ["--fifo"]])
    func streamAtRestReadsOneG(extra: [String]) throws {
        let rows = try streamed(["--imu", "lsm6dsv16x", "--scenario", "rest", "--count", "100"] + extra,
                                columns: ["acc_x_g", "acc_y_g", "acc_z_g"])
        #expect(rows.count == 100)
        for acceleration in rows {
            let magnitude = acceleration.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(acceleration)")
            #expect(acceleration[2] < -0.98, "\(acceleration)")
        }
    }

    /// Device motion at rest: gravity straight down.
    @Test func deviceMotionStreams() throws {
        let rows = try streamed(["--imu", "lsm6dsv16x", "--scenario", "rest", "--device-motion", "--count", "100"],
                                columns: ["gravity_x_g", "gravity_y_g", "gravity_z_g"])
        #expect(rows.count == 100)
        #expect(rows.suffix(20).allSatisfy { $0[2] < -0.99 }, "\(rows.suffix(3))")
    }
}
