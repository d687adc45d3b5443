import Foundation
import Testing

/// The page's altitude and steps: what each sample of the event stream carries beside device motion.
@Suite struct ServeAltitudeTests {
    @Test("with a barometer each sample carries the altimeter's latest update (the lift's climb) and the steps")
    func samplesCarryAltitudeAndSteps() async throws {
        let test = try await TestServer.start(scenario: "lift", barometer: true)
        defer { Task { await test.stop() } }
        // The lift waits 10 s, then rises 15 m (at up to 1 m/s).
        let text = try await test.sampleEvents("/events?rate=1", advancing: 20.5, count: 21)
        let info = try #require(RawHTTP.events("info", in: text).first)
        #expect(info["barometer"] as? String == "BMP280 at 0x76 on simulated")
        let samples = RawHTTP.events("sample", in: text)
        #expect(samples.count == 21, "one a second from the first sample at 0 s")
        // Before the altimeter's first second: null; then its update, once a second.
        #expect(samples.first?["altitude"] is NSNull)
        let altitudes = samples.compactMap { $0["altitude"] as? [String: Double] }
        #expect(altitudes.count >= 18, "\(altitudes.count)")
        let atRest = altitudes.prefix(8).compactMap { $0["relative"] }
        #expect(atRest.allSatisfy { abs($0) < 0.3 }, "\(atRest)")
        let (first, last) = (try #require(altitudes.first), try #require(altitudes.last))
        // A sample carries the latest update handed over by its time (the two samplers' deliveries
        // hop queues: one may be a second behind), so the climb shows as non-decreasing steps.
        #expect((3...15).contains(last["relative"] ?? .nan), "\(last)")
        let climbing = altitudes.suffix(6).compactMap { $0["relative"] }
        #expect(zip(climbing, climbing.dropFirst()).allSatisfy { $0 <= $1 } && (climbing.last ?? 0) > (climbing.first ?? 0) + 2, "\(climbing)")
        // The pressure behind it: about 12 Pa (0.012 kPa) less per metre near sea level.
        let drop = (first["pressure"] ?? .nan) - (last["pressure"] ?? .nan)
        #expect(abs(drop / (last["relative"] ?? .nan) - 0.012) < 0.001, "\(drop) kPa over \(last["relative"] ?? .nan) m")
        let times = altitudes.compactMap { $0["t"] }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        for sample in samples {
            let steps = try #require(sample["steps"] as? [String: Any])
            #expect(steps["count"] as? Int == 0)
            #expect(["stationary", "walking", "running", "unknown"].contains(steps["activity"] as? String ?? ""), "\(steps)")
            #expect(["low", "medium", "high"].contains(steps["confidence"] as? String ?? ""), "\(steps)")
        }
    }

    @Test("without a barometer: steps, and no altitude key (the page says so)")
    func withoutABarometer() async throws {
        let test = try await TestServer.start(scenario: "rest")
        defer { Task { await test.stop() } }
        let text = try await test.sampleEvents("/events?rate=10", advancing: 1.05, count: 11)
        let info = try #require(RawHTTP.events("info", in: text).first)
        #expect(info["barometer"] is NSNull)
        let samples = RawHTTP.events("sample", in: text)
        #expect(samples.count == 11)
        #expect(samples.allSatisfy { $0["altitude"] == nil && $0["steps"] is [String: Any] })
    }
}
