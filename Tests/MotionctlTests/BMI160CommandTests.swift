import Foundation
import Testing

/// `--imu bmi160` through the built `motionctl`: the probe names the chip, and a stream at rest
/// reads gravity.
struct BMI160CommandTests {
    @Test func probeListsTheBMI160AndItsMagnetometer() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bmi160"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix(": 3 device(s) answered") == true)
        #expect(Array(lines.dropFirst()) == ["  0x0D  QMC5883L", "  0x68  BMI160", "  0x76  BMP280"])
    }

    /// 200 raw samples on the `rest` scenario (lying face up, with the simulated sensor errors):
    /// every acceleration is 1 g ± 2 %, pointing down (Core Motion sign: z ≈ −1).
    @Test func streamAtRestReadsOneG() throws {
        let rows = try streamed(["--imu", "bmi160", "--scenario", "rest", "--count", "200"], columns: ["acc_x_g", "acc_y_g", "acc_z_g"])
        #expect(rows.count == 200)
        for row in rows {
            let acceleration = row
            let magnitude = acceleration.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
            #expect(acceleration[2] < -0.98, "\(row)")
        }
    }
}
