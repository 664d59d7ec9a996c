// Handles given to C callers. A handle is a token looked up in a table, never a pointer the
// library dereferences, so a closed or foreign handle is reported, not followed.
import Glibc
import PasscodeCore

/// Static C strings, made once and kept for the life of the process.
enum CStrings {
    nonisolated(unsafe) private static var table: [String: UnsafeMutablePointer<CChar>] = [:]
    private static let lock = Mutex()

    static func intern(_ s: String) -> UnsafePointer<CChar>? {
        lock.locked {
            if let p = table[s] { return UnsafePointer(p) }
            let p = strdup(s)!
            table[s] = p
            return UnsafePointer(p)
        }
    }
}

final class Mutex: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil) }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        return try body()
    }
}

/// What a `passcode_store *` stands for.
final class StoreBox: @unchecked Sendable {
    let store: PasscodeStore
    private let lock = Mutex()
    private var message: UnsafeMutablePointer<CChar>?

    init(_ store: PasscodeStore) { self.store = store }
    deinit { free(message) }

    func setMessage(_ text: String?) {
        lock.locked {
            free(message)
            message = text.map { strdup($0) }
        }
    }

    var messagePointer: UnsafePointer<CChar>? {
        lock.locked { message.map { UnsafePointer($0) } }
    }
}

/// What a `passcode_options *` stands for.
final class OptionsBox: @unchecked Sendable {
    var options = StoreOptions()
}

/// A table of live handles of one kind, keyed by the token handed out.
final class HandleTable<Box: AnyObject>: @unchecked Sendable {
    private let lock = Mutex()
    private var boxes: [UInt: Box] = [:]
    private var next: UInt

    init(tag: UInt) { next = tag << 40 }

    func add(_ box: Box) -> OpaquePointer {
        lock.locked {
            next += 16
            boxes[next] = box
            return OpaquePointer(bitPattern: next)!
        }
    }

    func get(_ handle: OpaquePointer?) -> Box? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return lock.locked { boxes[key] }
    }

    @discardableResult
    func remove(_ handle: OpaquePointer?) -> Box? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return lock.locked { boxes.removeValue(forKey: key) }
    }
}

enum Handles {
    static let stores = HandleTable<StoreBox>(tag: 0x5c)
    static let options = HandleTable<OptionsBox>(tag: 0x5d)
    /// The message of the last failed `passcode_open` (any thread), for `passcode_errmsg(NULL)`.
    static let openMessage = StoreMessage()
}

final class StoreMessage: @unchecked Sendable {
    private let lock = Mutex()
    private var message: UnsafeMutablePointer<CChar>?
    func set(_ text: String) { lock.locked { free(message); message = strdup(text) } }
    var pointer: UnsafePointer<CChar>? { lock.locked { message.map { UnsafePointer($0) } } }
}

/// Runs one C call on a store handle: looks the handle up, runs `body`, records the message of
/// a failure, and returns the status.
func withStore(_ handle: OpaquePointer?, _ body: (PasscodeStore) throws -> Void) -> Int32 {
    guard let box = Handles.stores.get(handle) else { return Status.errInvalidHandle.rawValue }
    do {
        try body(box.store)
        return Status.ok.rawValue
    } catch let error as PasscodeError {
        box.setMessage(error.message)
        return error.status.rawValue
    } catch {
        box.setMessage("unexpected error")
        return Status.errInternal.rawValue
    }
}

/// Copies a caller's secret (digits or a code) into a wiped-on-release buffer.
func secret(_ pointer: UnsafePointer<CChar>?, _ length: UInt, what: String) throws -> SecretBytes {
    guard let pointer else { throw PasscodeError.misuse("\(what) is NULL") }
    guard length <= 4096 else { throw PasscodeError.format("\(what) is too long") }
    return SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
}

/// Writes `value` through an out-pointer that must not be NULL.
func put<T>(_ out: UnsafeMutablePointer<T>?, _ value: T) throws {
    guard let out else { throw PasscodeError.misuse("the out pointer is NULL") }
    out.pointee = value
}
