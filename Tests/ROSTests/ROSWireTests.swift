import Foundation
import Testing
import TestSupport

/// What crosses the wire, message by message: each `imu/data` and `imu/mag` message the peer
/// decoded against the row `motionctl ros2 --echo` printed for the same sample (the columns of
/// `stream --device-motion`), converted here from the conventions as docs/ros2.md states them,
/// not through MotionROS' code.
extension ROSPeerTests {
    @Test("each decoded message is its sample's stream row in REP-103/REP-145; covariances measured at rest; a 90° turn counterclockwise is +90° of ROS yaw")
    func messagesAreTheirRows() throws {
        let namespace = "/swift_motion_wire"
        let peer = try ROSPeer(domain: Self.domain, namespace: namespace)
        defer { peer.end() }
        try peer.waitUntilReady()
        // A calibration store of its own: one another test of this process left would start the
        // heading calibrated, and the turn is checked while it is not.
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ros2-wire-\(UUID())")
        defer { try? FileManager.default.removeItem(at: store) }
        let result = try runToEnd(
            try builtExecutable("motionctl"),
            ["ros2", "--simulated", "--scenario", "quarter-turn", "--duration", "9", "--rate", "20", "--echo",
             "--domain-id", "\(Self.domain)", "--namespace", namespace],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": store.path]) { $1 }, timeout: 90)
        #expect(result.status == 0, "\(result.error)")
        let messages = try peer.messages()

        // The echoed rows: a header, then one row a published sample.
        let lines = result.output.split(separator: "\n").map(String.init)
        let header = try #require(lines.first).split(separator: ",").map(String.init)
        let rows: [[String: Double]] = lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) ?? .nan }))
        }
        #expect(rows.count >= 170 && rows.count <= 181, "\(rows.count) rows")

        let imu = messages.filter { $0["topic"] as? String == "imu/data" }
        let mag = messages.filter { $0["topic"] as? String == "imu/mag" }
        #expect(imu.count >= rows.count - 10, "\(imu.count) of \(rows.count)")
        #expect(mag.count == imu.count)

        // Each message matched to the row whose converted values it carries (the samples differ by
        // their noise), in order, every stamp the row's timestamp plus one offset.
        var next = 0
        var offsets: [Int] = []
        var matched: [(message: [String: Any], row: [String: Double])] = []
        for message in imu {
            let a = try #require(message["linear_acceleration"] as? [Double])
            let w = try #require(message["angular_velocity"] as? [Double])
            guard let index = rows[next...].firstIndex(where: { row in
                Self.close(a, Self.expectedAcceleration(row), 2e-5) && Self.close(w, Self.expectedRate(row), 2e-6)
            }) else {
                Issue.record("no row carries message \(message)")
                continue
            }
            next = index + 1
            let row = rows[index]
            matched.append((message, row))
            let q = try #require(message["orientation"] as? [Double])
            // Body x (forward) is the device's y (top edge); its direction in ENU, from the row's
            // Core Motion attitude (x north, y west, z up): east = -y, north = x.
            let forward = Self.rotate(q, SIMD3(1, 0, 0))
            let top = Self.rotate([row["qx"]!, row["qy"]!, row["qz"]!, row["qw"]!], SIMD3(0, 1, 0))
            #expect(Self.close(forward, SIMD3(-top.y, top.x, top.z), 2e-5), "\(forward) \(top)")
            let stamp = try #require(message["stamp"] as? [Int])
            offsets.append(stamp[0] * 1_000_000_000 + stamp[1] - Int((row["timestamp_s"]! * 1e9).rounded()))
        }
        #expect(matched.count == imu.count)
        if let low = offsets.min(), let high = offsets.max() { #expect(high - low <= 2, "stamp offsets spread \(high - low) ns") }
        for (message, row) in zip(mag, matched.map(\.row)) {
            let field = try #require(message["magnetic_field"] as? [Double])
            let expected = SIMD3(row["mag_y_uT"]!, -row["mag_x_uT"]!, row["mag_z_uT"]!) * 1e-6
            #expect(Self.close(field, expected, 2e-12), "\(field) \(expected)")
        }

        // The barometer (the simulated board's BMP280 at 26.3 Hz): FluidPressure in Pa and the die's
        // Temperature, one pair a reading, on the publisher's clock; at sea level under the simulated
        // weather's 1013.25 hPa.
        let pressure = messages.filter { $0["topic"] as? String == "pressure" }
        let temperature = messages.filter { $0["topic"] as? String == "temperature" }
        #expect(pressure.count >= 150 && pressure.count <= 250 && temperature.count == pressure.count, "\(pressure.count), \(temperature.count)")
        for message in pressure {
            let pascals = try #require(message["fluid_pressure"] as? Double)
            #expect(abs(pascals - 101_325) < 100, "\(pascals) Pa")
        }
        #expect(temperature.allSatisfy { abs(($0["temperature"] as? Double ?? 0) - 25) < 10 }, "\(temperature.prefix(2))")
        let pressureStamps = pressure.compactMap { $0["stamp"] as? [Int] }.map { $0[0] * 1_000_000_000 + $0[1] }
        #expect(zip(pressureStamps, pressureStamps.dropFirst()).allSatisfy { $0 < $1 })

        // Covariances: orientation diagonal (tilt (1°)²/2 each, yaw by the heading's accuracy);
        // after the first still second the sensors' measured noise, zeros before it.
        let tilt = pow(Double.pi / 180, 2) / 2
        for message in imu {
            let orientation = try #require(message["orientation_covariance"] as? [Double])
            #expect(abs(orientation[0] - tilt) < 1e-15 && abs(orientation[4] - tilt) < 1e-15 && orientation[8] > 0, "\(orientation)")
            #expect([1, 2, 3, 5, 6, 7].allSatisfy { orientation[$0] == 0 })
        }
        let measured = imu.compactMap { $0["angular_velocity_covariance"] as? [Double] }.filter { $0[0] > 0 }
        #expect(measured.count >= imu.count - 25, "\(measured.count) of \(imu.count) measured")
        for rate in measured {
            #expect([0, 4, 8].allSatisfy { rate[$0] > 0 && rate[$0] < 0.05 * 0.05 } && [1, 2, 3, 5, 6, 7].allSatisfy { rate[$0] == 0 }, "\(rate)")
        }
        let acceleration = try #require(imu.last?["linear_acceleration_covariance"] as? [Double])
        #expect([0, 4, 8].allSatisfy { acceleration[$0] > 0 && acceleration[$0] < 0.2 * 0.2 }, "\(acceleration)")

        // The turn (at 3–5 s of the scenario): ROS yaw (ENU, counterclockwise from east) at rest
        // before it and once it is done, while the heading is still uncalibrated (yaw variance
        // π²/3): the board's turn as the gyroscope measured it, before the background calibration
        // corrects where north is.
        func yaw(_ message: [String: Any]) -> Double {
            let q = message["orientation"] as? [Double] ?? [0, 0, 0, 1]
            return atan2(2 * (q[3] * q[2] + q[0] * q[1]), 1 - 2 * (q[1] * q[1] + q[2] * q[2]))
        }
        // The turn found in the rows themselves (the run may start late on a loaded machine): its
        // last sample turning faster than 0.1 rad/s; `after` the first message at rest after it
        // whose heading is unknown (before the calibration moves north to where it is; later the
        // level can say unknown while the attitude filter takes in a calibration just learned).
        let unknownHeading = Double.pi * Double.pi / 3
        let turning = matched.indices.filter { abs(matched[$0].row["rot_z_rad_s"]!) > 0.1 }
        let (turnStart, turnEnd) = (try #require(turning.first, "no turn in the rows"), try #require(turning.last))
        // At rest just before the turn (the held heading's offset settles in the first second).
        let before = matched[max(0, turnStart - 2)].message
        let after = try #require(matched.dropFirst(turnEnd + 4).first { pair in
            (pair.message["orientation_covariance"] as? [Double])?[8] == unknownHeading
        }, "no message after the turn while the heading was uncalibrated").message
        var change = (yaw(after) - yaw(before)) * 180 / Double.pi
        if change < -180 { change += 360 }
        if change > 180 { change -= 360 }
        #expect(abs(change - 90) < 3, "yaw changed by \(change)°")
    }

    /// REP-145: the specific force in m/s² about the body axes (x = device y, y = -device x).
    static func expectedAcceleration(_ row: [String: Double]) -> SIMD3<Double> {
        let total = SIMD3(row["gravity_x_g"]! + row["user_acc_x_g"]!, row["gravity_y_g"]! + row["user_acc_y_g"]!, row["gravity_z_g"]! + row["user_acc_z_g"]!)
        return SIMD3(-total.y, total.x, -total.z) * 9.80665
    }

    static func expectedRate(_ row: [String: Double]) -> SIMD3<Double> {
        SIMD3(row["rot_y_rad_s"]!, -row["rot_x_rad_s"]!, row["rot_z_rad_s"]!)
    }

    /// Within the rows' six decimals (relative for large values).
    static func close(_ values: [Double], _ expected: SIMD3<Double>, _ tolerance: Double) -> Bool {
        values.count == 3 && close(SIMD3(values[0], values[1], values[2]), expected, tolerance)
    }

    static func close(_ v: SIMD3<Double>, _ expected: SIMD3<Double>, _ tolerance: Double) -> Bool {
        (0..<3).allSatisfy { abs(v[$0] - expected[$0]) <= tolerance * max(1, abs(expected[$0])) }
    }

    /// `v` turned by the unit quaternion (x, y, z, w).
    static func rotate(_ q: [Double], _ v: SIMD3<Double>) -> SIMD3<Double> {
        let u = SIMD3(q[0], q[1], q[2]), w = q[3]
        let t = 2 * SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        return v + w * t + SIMD3(u.y * t.z - u.z * t.y, u.z * t.x - u.x * t.z, u.x * t.y - u.y * t.x)
    }
}
