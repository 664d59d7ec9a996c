// A plain mutex for the state a handle shares between threads.
import CPasscodeShims

/// Also used by the C layer for its handle tables: one mutex wrapper for the whole library.
public final class Mutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
