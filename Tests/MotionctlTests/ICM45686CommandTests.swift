import Foundation
import Testing

/// The ICM-45686 on the simulated board through the built `motionctl`.
struct ICM45686CommandTests {
    @Test func probeListsTheICM45686() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "icm45686"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  0x68  ICM-45686"), "\(result.output)")
        #expect(lines.contains("  0x0D  QMC5883L"), "\(result.output)")
    }

    /// At rest every sample's acceleration is 1 g ± 2 % and its rotation rate under 0.05 rad/s.
    @Test func streamAtRestReadsOneG() throws {
        for row in try restingStream(imu: "icm45686") {
            #expect(abs(row.acceleration - 1) <= 0.02 && row.rotation < 0.05, "\(row)")
        }
    }

    @Test func deviceMotionStreams() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "icm45686", "--device-motion", "--count", "20"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n").count == 21, "\(result.output)")
    }

    /// Through the FIFO (`--fifo`): 100 raw samples on the `rest` scenario, 1 g ± 2 %, down.
    @Test func fifoStreamAtRestReadsOneG() throws {
        let rows = try streamed(["--imu", "icm45686", "--scenario", "rest", "--count", "100", "--fifo"],
                                columns: ["acc_x_g", "acc_y_g", "acc_z_g"])
        #expect(rows.count == 100)
        for acceleration in rows {
            let magnitude = acceleration.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(acceleration)")
            #expect(acceleration[2] < -0.98, "\(acceleration)")
        }
    }
}
