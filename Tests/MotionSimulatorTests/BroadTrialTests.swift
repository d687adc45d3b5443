import BroadData
import Foundation
import MotionSimulator
import Testing

@Suite struct BroadTrialTests {
    static let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"

    func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "broad-\(UUID().uuidString).csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func parsesValuesNaNAndExponents() throws {
        let path = try write(Self.header
            + "0.000000,-0.001064651,2.5e-3,1,-0.2361874,-0.3631649,9.919315,0.222607,15.8218,-38.3379,0.999732737,-0.019642706,0.0121226302,-0.00128893308,0\n"
            + "0.003500,0,0,0,0,0,9.81,1,2,3,nan,nan,nan,nan,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trial = try BroadTrial.load(path: path)
        #expect(trial.count == 2)
        #expect(trial.gyroscope[0] == SIMD3(-0.001064651, 0.0025, 1))
        #expect(trial.accelerometer[0].z == 9.919315)
        #expect(trial.magnetometer[1] == SIMD3(1, 2, 3))
        #expect(trial.reference[0][3] == -0.00128893308)
        #expect(trial.reference[1][0].isNaN)
        #expect(trial.movement == [false, true])
        #expect(abs(trial.sampleInterval - 0.0035) < 1e-15)
    }

    @Test func malformedValueNamesFileLineAndColumn() throws {
        let path = try write(Self.header + "0,1,2,3,4,5,6,7,8,9,1,0,0,0,1\n0.1,1,2,3,4,5,6,7,oops,9,1,0,0,0,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try BroadTrial.load(path: path)
        } throws: { error in
            let error = error as? BroadError
            return error?.file == path && error?.line == 3 && error?.column == "mag_y"
                && (error?.description.contains("\"oops\" is not a number") ?? false)
        }
    }

    @Test func shortRowAndWrongHeaderAreErrors() throws {
        let short = try write(Self.header + "0,1,2,3\n")
        let wrong = try write("t,gyr_x\n0,1\n")
        defer {
            try? FileManager.default.removeItem(atPath: short)
            try? FileManager.default.removeItem(atPath: wrong)
        }
        #expect(throws: BroadError.self) { _ = try BroadTrial.load(path: short) }
        #expect(throws: BroadError.self) { _ = try BroadTrial.load(path: wrong) }
        #expect(throws: BroadError.self) { _ = try BroadTrial.load(path: "/nonexistent/trial.csv") }
    }

    @Test func metricOfPerfectAndYawedEstimates() throws {
        let path = try write(Self.header + "0,0,0,0,0,0,9.81,1,0,0,1,0,0,0,1\n0.01,0,0,0,0,0,9.81,1,0,0,nan,nan,nan,nan,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trial = try BroadTrial.load(path: path)
        let perfect = BroadMetric(estimates: [SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0)], trial: trial)
        #expect(perfect.total == 0 && perfect.samples == 1)
        // 10° about up: all heading, no inclination.
        let half = 5 * Double.pi / 180
        let yawed = BroadMetric(estimates: [SIMD4(cos(half), 0, 0, sin(half)), SIMD4(1, 0, 0, 0)], trial: trial)
        #expect(abs(yawed.total - 10) < 1e-9 && abs(yawed.heading - 10) < 1e-9 && yawed.inclination < 1e-6)
    }
}
