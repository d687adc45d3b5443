import BroadData
import Foundation
import Testing
@testable import MotionSimulator

@Suite struct RecordFormatTests {
    /// The first lines of a `motionctl record --simulated` file, as written.
    static let motionctlRecordFile = """
        # motionctl record: 5 samples at 100.0 Hz
        # LSM6DSO/LSM6DSOX at 0x6A: ODR 208.0 Hz, accelerometer ±4.0 g = 8196.72131147541 LSB/g, gyroscope ±500.0 °/s = 57.142857142857146 LSB/(°/s)
        time_s,accelerometer_x_LSB,accelerometer_y_LSB,accelerometer_z_LSB,gyroscope_x_LSB,gyroscope_y_LSB,gyroscope_z_LSB,magnetometer_x_LSB,magnetometer_y_LSB,magnetometer_z_LSB,specific_force_x_m_s2,specific_force_y_m_s2,specific_force_z_m_s2,angular_rate_x_rad_s,angular_rate_y_rad_s,angular_rate_z_rad_s,magnetic_field_x_uT,magnetic_field_y_uT,magnetic_field_z_uT,temperature_C
        0.01,33,-19,8293,16,-16,11,1026,664,-1925,0.0394815729,-0.022731814699999995,9.9218389109,0.004886921905584122,-0.004886921905584122,0.003359758810089084,14.995615317158725,9.704764688687519,-28.135048231511252,25.0
        0.02,36,-15,8304,16,-17,13,1049,651,-1944,0.0430708068,-0.017946169499999998,9.9349994352,0.004886921905584122,-0.00519235452468313,0.003970624048287099,15.331774334989769,9.514761765565623,-28.412744811458637,25.0

        """

    @Test func aMotionctlRecordFileReadsBackAsARecording() throws {
        let recording = try Recording(csv: Self.motionctlRecordFile)
        #expect(recording.samples.map(\.time) == [0.01, 0.02])
        #expect(recording.samples[0].specificForce == SIMD3(0.0394815729, -0.022731814699999995, 9.9218389109))
        #expect(recording.samples[1].angularRate == SIMD3(0.004886921905584122, -0.00519235452468313, 0.003970624048287099))
        #expect(recording.samples[0].magneticField == SIMD3(14.995615317158725, 9.704764688687519, -28.135048231511252))
        #expect(recording.samples[1].temperature == 25)
    }

    @Test func aBroadTrialBecomesARecordingColumnForColumn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broad-\(UUID()).csv").path
        try """
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement
            0.0,0.1,0.2,0.3,0.5,-0.4,9.81,20.5,-3.25,-41.0,1,0,0,0,0
            0.0035,-0.1,0.25,0.35,0.55,-0.45,9.79,20.75,-3.5,-41.25,nan,nan,nan,nan,1

            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trial = try BroadTrial.load(path: path)
        let recording = Recording(broad: trial, startTime: 100)
        #expect(recording.samples == [
            RecordedSample(time: 100, specificForce: SIMD3(0.5, -0.4, 9.81), angularRate: SIMD3(0.1, 0.2, 0.3),
                           magneticField: SIMD3(20.5, -3.25, -41.0)),
            RecordedSample(time: 100.0035, specificForce: SIMD3(0.55, -0.45, 9.79), angularRate: SIMD3(-0.1, 0.25, 0.35),
                           magneticField: SIMD3(20.75, -3.5, -41.25)),
        ])
        // Held until the next sample, as a chip register would be.
        let replay = ReplaySource(broad: trial, startTime: 100)
        #expect(replay.state(at: 100.002).angularRate == SIMD3(0.1, 0.2, 0.3))
        #expect(replay.state(at: 100.0035).angularRate == SIMD3(-0.1, 0.25, 0.35))
    }
}
