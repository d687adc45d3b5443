import Dispatch
import Foundation
import Fusion
import Locking
@testable import Motion
import MotionSimulation
@testable import MotionSimulator
import Testing
import Timing

/// The baro-inertial vertical channel on the simulated stairs: device motion at 100 Hz and the
/// BMP280's readings at 26.3 Hz from boards playing the same world on one virtual clock, blended
/// by ``VerticalChannel``, its vertical velocity against the world's and against the barometer
/// alone (the change of its altitude over the last second). Prints the figures docs/altimeter.md
/// quotes.
@Suite struct VerticalChannelTests {
    struct Errors {
        var channel: Double
        var barometer: Double
    }

    /// RMS vertical-velocity errors while climbing (true speed over 0.05 m/s), m/s.
    static func velocityErrors(seed: UInt64, timeConstant: Double) throws -> Errors {
        let clock = VirtualClock()
        let simulation = Simulation(scenario: "stairs", seed: seed)
        let manager = try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
        let altimeter = try Altimeter(source: .simulated(simulation), clock: clock)
        let world = try #require(altimeter.simulatedHardware?.world)
        let readings = Locked<[BarometerSample]>([])
        let consumer = altimeter.hub.addConsumer { event in
            if case .sample(let sample) = event { readings.withLock { $0.append(sample) } }
        }
        let motions = Inbox<DeviceMotion>()
        manager.deviceMotionUpdateInterval = 0.01
        manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: motions.queue, withHandler: motions.handler)
        clock.advance(by: world.script.duration)
        motions.drain()
        manager.stopDeviceMotionUpdates()
        altimeter.hub.removeConsumer(consumer)
        altimeter.hub.flush()
        let barometer = readings.withLock { $0 }, motion = motions.values.withLock { $0 }
        #expect(barometer.count > 26 * Int(world.script.duration) - 30 && motion.count > 99 * Int(world.script.duration))

        var channel = VerticalChannel(timeConstant: timeConstant)
        var next = 0
        var last: Double?
        var (channelSquares, count) = (0.0, 0)
        for sample in motion {
            while next < barometer.count, barometer[next].timestamp <= sample.timestamp {
                channel.correct(barometricAltitude: BarometricFormula.altitude(pressure: barometer[next].pressure))
                next += 1
            }
            let up = PhysicalState.standardGravity * (sample.userAcceleration * sample.gravity).sum()
            channel.predict(verticalAcceleration: up, interval: last.map { sample.timestamp - $0 } ?? 0)
            last = sample.timestamp
            let truth = world.truth(at: sample.timestamp).velocity.z
            // After the first 10 s (the fusion and the filter settle while the board is held still).
            if sample.timestamp - world.startTime > 10, abs(truth) > 0.05 {
                channelSquares += (channel.verticalVelocity - truth) * (channel.verticalVelocity - truth)
                count += 1
            }
        }
        var (barometerSquares, barometerCount) = (0.0, 0)
        let perSecond = Int((1 / altimeter.hub.interval).rounded())
        for index in perSecond..<barometer.count {
            let (now, before) = (barometer[index], barometer[index - perSecond])
            let rate = (BarometricFormula.altitude(pressure: now.pressure) - BarometricFormula.altitude(pressure: before.pressure))
                / (now.timestamp - before.timestamp)
            let truth = world.truth(at: now.timestamp).velocity.z
            if now.timestamp - world.startTime > 10, abs(truth) > 0.05 {
                barometerSquares += (rate - truth) * (rate - truth)
                barometerCount += 1
            }
        }
        return Errors(channel: (channelSquares / Double(count)).squareRoot(), barometer: (barometerSquares / Double(barometerCount)).squareRoot())
    }

    /// Issue 43's measurement: during the climbs the channel's vertical velocity is nearer the
    /// truth than the barometer's own over its last second, for five seeds.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theChannelsVelocityBeatsTheBarometerAlone(seed: UInt64) throws {
        let errors = try Self.velocityErrors(seed: seed, timeConstant: 5)
        print(String(format: "vertical channel, stairs seed %llu: RMS vertical-velocity error while climbing %.3f m/s (τ 5 s), barometer alone %.3f m/s", seed, errors.channel, errors.barometer))
        #expect(errors.channel < errors.barometer / 3, "channel \(errors.channel) m/s, barometer \(errors.barometer) m/s")
    }

    /// The time constant's trade: printed for 1, 2 and 5 s (seed 1).
    @Test func timeConstants() throws {
        for tau in [1.0, 2, 5] {
            let errors = try Self.velocityErrors(seed: 1, timeConstant: tau)
            print(String(format: "vertical channel, stairs seed 1, τ %.0f s: RMS vertical-velocity error while climbing %.3f m/s", tau, errors.channel))
            #expect(errors.channel < errors.barometer)
        }
    }
}
