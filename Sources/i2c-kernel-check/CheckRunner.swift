import Glibc
import I2C

/// A check that failed, with what was expected and what came back.
struct CheckFailure: Error {
    var message: String
}

/// One named check of the kernel tier; throws ``CheckFailure`` or an ``I2CError`` when it fails.
struct Check {
    var name: String
    var run: () throws -> Void
}

/// Fails the running check with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(CheckFailure) {
    if !condition { throw CheckFailure(message: message()) }
}

/// Waits at least `minimum` seconds, then polls `condition` every 10 ms until it holds or
/// `seconds` have passed in all; whether it held. For what the VM does in its own time (a
/// sampler's first samples, a driver coming back): the checks assert what arrived, and a VM the
/// host starves is slower, not wrong.
func waitUntil(seconds: Double, minimum: Double = 0, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    usleep(useconds_t(minimum * 1_000_000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(10_000)
    }
    return true
}

/// Runs `operation` expecting an ``I2CError``; returns it, or fails the check if none came.
func expectError(_ what: String, _ operation: () throws -> Void) throws(CheckFailure) -> I2CError {
    do {
        try operation()
    } catch let error as I2CError {
        return error
    } catch {
        throw CheckFailure(message: "\(what) threw \(error), expected an I2CError")
    }
    throw CheckFailure(message: "\(what) succeeded, expected an error")
}

/// Runs every check, prints `PASS name` or `FAIL name: why` per check, then `N passed, N failed`.
/// Returns the number of failures.
func runChecks(_ checks: [Check]) -> Int {
    var failed = 0
    for check in checks {
        do {
            try check.run()
            print("PASS \(check.name)")
        } catch let failure as CheckFailure {
            failed += 1
            print("FAIL \(check.name): \(failure.message)")
        } catch {
            failed += 1
            print("FAIL \(check.name): unexpected error: \(error)")
        }
    }
    print("\(checks.count - failed) passed, \(failed) failed")
    return failed
}
