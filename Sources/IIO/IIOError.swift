#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed read or write of a Linux IIO device (sysfs attribute or buffer character device),
/// with the cause kept and a hint a person can act on.
public struct IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The device was there and is gone (`ENOENT`/`ENODEV`/`ENXIO` on a path that existed):
        /// unbound, module unloaded, USB hub unplugged. It may come back.
        case deviceRemoved = "device removed"
        /// No IIO device of the kind asked for under the sysfs root.
        case noDevice = "no device"
        /// This user may not read or write the attribute or open the buffer.
        case permissionDenied = "permission denied"
        /// Someone else holds it (another reader of the buffer, the buffer enabled while a
        /// direct `_raw` read was tried).
        case busy
        /// The attribute's text is not what the IIO ABI promises (a number, a scan type, a matrix).
        case badValue = "bad value"
        /// Any other failure; `errno` says which.
        case io = "I/O error"
    }

    public var kind: Kind
    /// The file or directory concerned.
    public var path: String
    /// The operating system's error number, when there was one.
    public var errno: Int32?
    /// What was attempted and what came back.
    public var detail: String
    /// What a person can do about it.
    public var hint: String?

    package init(_ kind: Kind, path: String, errno: Int32? = nil, detail: String, hint: String? = nil) {
        self.kind = kind
        self.path = path
        self.errno = errno
        self.detail = detail
        self.hint = hint
    }

    public var description: String {
        var text = "\(path): \(kind.rawValue): \(detail)"
        if let errno { text += " (errno \(errno))" }
        if let hint { text += ". \(hint)" }
        return text
    }

    /// The error for `errno` after `attempted` failed on `path`.
    package static func from(errno code: Int32, path: String, attempted: String) -> IIOError {
        let reason = "\(attempted) failed: \(String(cString: strerror(code)))"
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return IIOError(
                .deviceRemoved, path: path, errno: code, detail: reason,
                hint: "the device went away (unbound, module unloaded, unplugged); reading resumes when it returns")
        case EACCES, EPERM:
            return IIOError(
                .permissionDenied, path: path, errno: code, detail: reason,
                hint: "run as root, or add a udev rule giving your group access: SUBSYSTEM==\"iio\", GROUP=\"iio\", MODE=\"0660\" "
                    + "(the sysfs attributes need RUN+=\"/bin/chgrp -R iio /sys%p\" as well)")
        case EBUSY:
            return IIOError(
                .busy, path: path, errno: code, detail: reason,
                hint: "another program reads this device's buffer (or enabled it): stop it, or use polling")
        default:
            return IIOError(.io, path: path, errno: code, detail: reason)
        }
    }
}
