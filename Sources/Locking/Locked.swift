#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a mutual-exclusion lock: `state.withLock { $0.count += 1 }`.
///
/// Built on `pthread_mutex_t` rather than `Synchronization.Mutex`: on Linux the latter waits on a
/// futex the thread sanitizer cannot see, so every access it protects is reported as a race, and
/// CI runs the sampler under the thread sanitizer. A reference type, so it can be captured and
/// shared freely.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the mutex already makes every access exclusive, and the runtime's dynamic
    /// check (`swift_beginAccess`) cost more than the lock itself on the sampler's hot path.
    /// Internal only so that the inlined `withLock` reaches it directly (no accessor coroutine).
    @usableFromInline @exclusivity(unchecked) var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: do not call `withLock` on
    /// the same lock from inside `body`.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }
}
