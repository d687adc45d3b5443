/// Why ROS 2 publishing could not start: each names the thing at fault and what to do.
public enum ROSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A setting is out of range or not a valid ROS name.
    case invalidSetting(String, problem: String, fix: String)
    /// Cyclone DDS refused a call: the call, its return code and Cyclone's text for it.
    case library(call: String, code: Int32, reason: String)
    /// ``ROSPublisher/start()`` on a publisher that has already started.
    case alreadyStarted

    public var description: String {
        switch self {
        case .invalidSetting(let setting, let problem, let fix):
            "the \(setting) \(problem): \(fix)"
        case .library(let call, let code, let reason):
            "Cyclone DDS refused \(call): \(reason) (code \(code)); check CYCLONEDDS_URI's configuration, if set, "
                + "and that a network interface with multicast is up (ip link)"
        case .alreadyStarted:
            "the ROS 2 publisher has already started: make a new one to start again"
        }
    }
}
