import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Motion
import MotionFormats
import MotionROS

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl ros2`: device motion to ROS 2 over DDS (MotionROS; topics, frames and QoS in
/// `ROSConfiguration`, docs/ros2.md), in real time until `--duration`, Ctrl-C, SIGTERM or SIGHUP (``Interruption``).
struct ROS2Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ros2",
        abstract: "Publish sensor_msgs/Imu and MagneticField to ROS 2 over DDS (Eclipse Cyclone DDS, as rmw_cyclonedds_cpp).",
        discussion: """
            Topics under the namespace: imu/data (fused orientation, ENU), imu/data_raw (no orientation), imu/mag (tesla, \
            with a magnetometer), pressure and temperature (sensor_msgs/FluidPressure in Pa and Temperature in °C, with a barometer). REP-103 body frame (x forward = the board's top edge, y left, z up), REP-145 \
            (acceleration with gravity: +9.81 m/s² on z lying face up). QoS: ROS's sensor-data profile (best effort, \
            keep last 5, volatile), --reliable for reliable. Check with: ros2 topic echo /imu/data.
            """)

    @Option(help: "The DDS domain (ROS_DOMAIN_ID), 0…232.") var domainID: Int = 0
    @Option(help: "The ROS namespace of the topics, e.g. /robot1 (default: none).") var namespace: String = ""
    @Option(help: "header.frame_id of every message.") var frameID: String = "imu_link"
    @Option(parsing: .unconditional, help: "Messages per second on each topic (up to 1000; the sampler keeps its own rate).", transform: OptionRange.decimal) var rate: Double = 50
    @Flag(help: "Reliable delivery instead of the sensor-data profile's best effort.") var reliable = false
    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: until Ctrl-C or SIGTERM).", transform: OptionRange.decimal) var duration: Double?
    @Flag(help: "Leave the barometer out (no pressure and temperature topics).") var noBarometer = false
    @Flag(help: "Also print each published sample on standard output as `stream --device-motion` prints it (its device-motion columns, CSV).")
    var echo = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(rate, "--rate", in: OptionRange.slowestRate...1000, unit: "Hz")
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            var configuration = ROSConfiguration()
            configuration.domainID = domainID
            configuration.namespace = namespace
            configuration.frameID = frameID
            configuration.rate = rate
            configuration.reliable = reliable
            do {
                try configuration.validate()
            } catch {
                throw CommandFailure(message: "\(error)")
            }
            // Publishing is real time: the simulated board plays on the system clock.
            let opened = try source.open(virtualTime: false)
            // The source's barometer, if it has one, for `pressure` and `temperature`.
            let altimeter: Altimeter?
            do {
                altimeter = noBarometer ? nil : try Altimeter(source: opened.source)
            } catch {
                printError("ros2: pressure and temperature not published: \(error)")
                altimeter = nil
            }
            try ROS2Session(manager: opened.manager, altimeter: altimeter, configuration: configuration, echo: echo)
                .run(runner: opened.runner(duration: duration))
        }
    }
}

/// The publishing itself, outside the command (handlers must not be main-actor isolated).
struct ROS2Session: Sendable {
    let manager: MotionManager
    let altimeter: Altimeter?
    let configuration: ROSConfiguration
    let echo: Bool

    func run(runner: UpdateRunner) throws {
        let publisher: ROSPublisher
        let output = OutputLines()
        if echo { output.write(MachineOutput.deviceMotionColumns.joined(separator: ",")) }
        let printRow: (@Sendable (DeviceMotion) -> Void)? = echo ? { @Sendable motion in
            output.write(MachineOutput.csvLine(MachineOutput.deviceMotionRow(motion)))
        } : nil
        do {
            publisher = try ROSPublisher(manager: manager, altimeter: altimeter, configuration: configuration, covariances: nil, published: printRow)
            try publisher.start()
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        let topics = ([ROSConfiguration.imuTopic, ROSConfiguration.rawTopic, ROSConfiguration.magneticFieldTopic]
            + (altimeter?.readingRate == nil ? [] : [ROSConfiguration.pressureTopic, ROSConfiguration.temperatureTopic]))
            .map { "/" + configuration.ddsTopic($0).dropFirst(3) }.joined(separator: ", ")
        printError("publishing \(manager.deviceName) to ROS 2 domain \(configuration.domainID): \(topics) at "
            + "\(OptionRange.describe(configuration.rate)) Hz, frame \(configuration.frameID), "
            + "\(configuration.reliable ? "reliable" : "best effort") (Ctrl-C ends)")
        let interrupted = runner.run(isDone: { output.error != nil }, drain: {})
        publisher.stop()
        if let error = output.error { throw error }
        let summary = "ros2: \(publisher.counters); sampler: \(manager.counters)"
        manager.reportBackgroundSaveFailure()
        if interrupted { throw Interruption.exit(summary) }
        // With --echo standard output holds the rows: the summary goes to standard error.
        if echo { printError(summary) } else { print(summary) }
    }
}
