import CCycloneDDS
import CROSMessages

#if canImport(Glibc)
import Glibc
#endif

/// One Cyclone DDS participant on a domain with the publisher's writers (`imu/data`,
/// `imu/data_raw`, `imu/mag`; `pressure` and `temperature` with a barometer), in the QoS of ROS's sensor-data profile (rmw's
/// `rmw_qos_profile_sensor_data`: best effort, keep last 5, volatile) or reliable on request.
/// Cyclone's calls are thread-safe; the publisher writes from one thread only.
final class DDSWriters: @unchecked Sendable {
    private let participant: dds_entity_t
    private let imu: dds_entity_t, raw: dds_entity_t, mag: dds_entity_t
    /// `pressure` and `temperature` (0 without a barometer).
    private let pressure: dds_entity_t, temperature: dds_entity_t
    /// `header.frame_id` as C's string, for the life of the writers.
    private let frameID: UnsafeMutablePointer<CChar>

    init(_ configuration: ROSConfiguration, magnetometer: Bool, barometer: Bool) throws(ROSError) {
        participant = dds_create_participant(dds_domainid_t(configuration.domainID), nil, nil)
        guard participant > 0 else { throw Self.failure("dds_create_participant(domain \(configuration.domainID))", participant) }
        guard let frameID = strdup(configuration.frameID) else {
            dds_delete(participant)
            throw .library(call: "strdup", code: -1, reason: "out of memory")
        }
        self.frameID = frameID
        let qos = dds_create_qos()
        defer { dds_delete_qos(qos) }
        // max_blocking_time 100 ms (rmw's default); with keep-last history a write never waits for a reader.
        dds_qset_reliability(qos, configuration.reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, 100_000_000)
        dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 5)
        dds_qset_durability(qos, DDS_DURABILITY_VOLATILE)
        let participant = participant
        func writer(_ name: String, _ descriptor: UnsafePointer<dds_topic_descriptor_t>) throws(ROSError) -> dds_entity_t {
            let topicName = configuration.ddsTopic(name)
            let topic = dds_create_topic(participant, descriptor, topicName, qos, nil)
            guard topic > 0 else { throw Self.failure("dds_create_topic(\(topicName))", topic) }
            let writer = dds_create_writer(participant, topic, qos, nil)
            guard writer > 0 else { throw Self.failure("dds_create_writer(\(topicName))", writer) }
            return writer
        }
        do throws(ROSError) {
            imu = try writer(ROSConfiguration.imuTopic, CROSMessages_imuDescriptor())
            raw = try writer(ROSConfiguration.rawTopic, CROSMessages_imuDescriptor())
            mag = magnetometer ? try writer(ROSConfiguration.magneticFieldTopic, CROSMessages_magneticFieldDescriptor()) : 0
            pressure = barometer ? try writer(ROSConfiguration.pressureTopic, CROSMessages_fluidPressureDescriptor()) : 0
            temperature = barometer ? try writer(ROSConfiguration.temperatureTopic, CROSMessages_temperatureDescriptor()) : 0
        } catch {
            dds_delete(participant)
            free(frameID)
            throw error
        }
    }

    deinit {
        dds_delete(participant)   // and with it its topics and writers
        free(frameID)
    }

    /// Writes one sample's messages; false when Cyclone refused the `imu/data` one.
    func write(_ values: ROSImuValues, covariances: ROSCovariances) -> Bool {
        var message = sensor_msgs_msg_dds__Imu_()
        message.header.stamp = builtin_interfaces_msg_dds__Time_(sec: values.stamp.sec, nanosec: values.stamp.nanosec)
        message.header.frame_id = frameID
        let q = values.orientation
        message.orientation = geometry_msgs_msg_dds__Quaternion_(x: q.x, y: q.y, z: q.z, w: q.w)
        message.orientation_covariance = Self.matrix(covariances.orientation)
        message.angular_velocity = Self.vector(values.angularVelocity)
        message.angular_velocity_covariance = Self.matrix(covariances.angularVelocity)
        message.linear_acceleration = Self.vector(values.linearAcceleration)
        message.linear_acceleration_covariance = Self.matrix(covariances.linearAcceleration)
        let written = dds_write(imu, &message) == DDS_RETCODE_OK
        // imu_tools' data_raw: the same rate and acceleration, no orientation (element 0 is -1, REP-145).
        message.orientation = geometry_msgs_msg_dds__Quaternion_(x: 0, y: 0, z: 0, w: 1)
        message.orientation_covariance = Self.matrix([-1, 0, 0, 0, 0, 0, 0, 0, 0])
        _ = dds_write(raw, &message)
        if mag != 0 {
            var field = sensor_msgs_msg_dds__MagneticField_()
            field.header = message.header
            field.magnetic_field = Self.vector(values.magneticField)
            field.magnetic_field_covariance = Self.matrix(covariances.magneticField)
            _ = dds_write(mag, &field)
        }
        return written
    }

    /// Writes one barometer reading: `sensor_msgs/FluidPressure` (Pa) and `sensor_msgs/Temperature`
    /// (the die's, °C), variance 0 ("unknown", as the messages define it); false when Cyclone
    /// refused the pressure or there is no barometer.
    func write(pressure pascals: Double, temperature celsius: Double, stamp: (sec: Int32, nanosec: UInt32)) -> Bool {
        guard pressure != 0 else { return false }
        let header = std_msgs_msg_dds__Header_(
            stamp: builtin_interfaces_msg_dds__Time_(sec: stamp.sec, nanosec: stamp.nanosec), frame_id: frameID)
        var fluid = sensor_msgs_msg_dds__FluidPressure_(header: header, fluid_pressure: pascals, variance: 0)
        let written = dds_write(pressure, &fluid) == DDS_RETCODE_OK
        var die = sensor_msgs_msg_dds__Temperature_(header: header, temperature: celsius, variance: 0)
        _ = dds_write(temperature, &die)
        return written
    }

    private static func vector(_ v: SIMD3<Double>) -> geometry_msgs_msg_dds__Vector3_ {
        geometry_msgs_msg_dds__Vector3_(x: v.x, y: v.y, z: v.z)
    }

    private static func matrix(_ m: [Double]) -> (Double, Double, Double, Double, Double, Double, Double, Double, Double) {
        m.count == 9 ? (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]) : (0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    private static func failure(_ call: String, _ code: dds_return_t) -> ROSError {
        .library(call: call, code: code, reason: dds_strretcode(code).map { String(cString: $0) } ?? "unknown error")
    }
}

/// The messages' covariances, row major about x, y, z of the body frame (`Imu.msg`); all zeros
/// means "unknown" to a ROS consumer, which then assumes its own.
public struct ROSCovariances: Sendable, Equatable {
    public var orientation = [Double](repeating: 0, count: 9)
    public var angularVelocity = [Double](repeating: 0, count: 9)
    public var linearAcceleration = [Double](repeating: 0, count: 9)
    public var magneticField = [Double](repeating: 0, count: 9)

    public init() {}

    /// A diagonal matrix of one variance for each axis.
    public static func diagonal(_ variance: Double) -> [Double] { [variance, 0, 0, 0, variance, 0, 0, 0, variance] }
}
