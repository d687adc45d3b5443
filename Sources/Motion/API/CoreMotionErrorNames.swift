import Foundation

// Core Motion's C error constants under their renamed spellings (`CMErrorDomain` →
// `MotionErrorDomain`, `CMErrorTrueNorthNotAvailable` → `MotionErrorTrueNorthNotAvailable`), so
// that error-code comparisons written for iOS build with the `CM` prefix dropped:
// `(error as NSError).code == Int(MotionErrorTrueNorthNotAvailable.rawValue)`. The values are
// ``MotionError/Code``s, Core Motion's numbers (Apple's `CMError` documentation).

/// The domain of every ``MotionError`` bridged to `NSError`: Core Motion's own name, `CMErrorDomain`.
public let MotionErrorDomain = MotionError.errorDomain

/// `CMErrorNULL` (100): no error.
public var MotionErrorNULL: MotionError.Code { .null }
/// `CMErrorDeviceRequiresMovement` (101).
public var MotionErrorDeviceRequiresMovement: MotionError.Code { .deviceRequiresMovement }
/// `CMErrorTrueNorthNotAvailable` (102).
public var MotionErrorTrueNorthNotAvailable: MotionError.Code { .trueNorthNotAvailable }
/// `CMErrorUnknown` (103).
public var MotionErrorUnknown: MotionError.Code { .unknown }
/// `CMErrorMotionActivityNotAvailable` (104).
public var MotionErrorMotionActivityNotAvailable: MotionError.Code { .motionActivityNotAvailable }
/// `CMErrorMotionActivityNotAuthorized` (105).
public var MotionErrorMotionActivityNotAuthorized: MotionError.Code { .motionActivityNotAuthorized }
/// `CMErrorMotionActivityNotEntitled` (106).
public var MotionErrorMotionActivityNotEntitled: MotionError.Code { .motionActivityNotEntitled }
/// `CMErrorInvalidParameter` (107).
public var MotionErrorInvalidParameter: MotionError.Code { .invalidParameter }
/// `CMErrorInvalidAction` (108).
public var MotionErrorInvalidAction: MotionError.Code { .invalidAction }
/// `CMErrorNotAvailable` (109).
public var MotionErrorNotAvailable: MotionError.Code { .notAvailable }
/// `CMErrorNotEntitled` (110).
public var MotionErrorNotEntitled: MotionError.Code { .notEntitled }
/// `CMErrorNotAuthorized` (111).
public var MotionErrorNotAuthorized: MotionError.Code { .notAuthorized }
/// `CMErrorNilData` (112).
public var MotionErrorNilData: MotionError.Code { .nilData }
/// `CMErrorSize` (113).
public var MotionErrorSize: MotionError.Code { .size }

extension MotionError.Code {
    /// Core Motion's `CMError(rawValue:)`, renamed `MotionError.Code(rawValue:)` (``MotionError``
    /// itself is the error with its cause): the code with this number, ``unknown`` for a number
    /// Core Motion does not define. As there, it does not fail.
    public init(rawValue: UInt32) {
        self = Self(rawValue: Int(rawValue)) ?? .unknown
    }
}
