// Handles given to C callers. A handle is a token looked up in a table, never a pointer the
// library dereferences, so a closed or foreign handle is reported, not followed.
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

/// Static C strings, made once and kept for the life of the process.
enum CStrings {
    nonisolated(unsafe) private static var table: [String: UnsafeMutablePointer<CChar>] = [:]
    private static let lock = Mutex()

    static func intern(_ s: String) -> UnsafePointer<CChar>? {
        lock.withLock {
            if let p = table[s] { return UnsafePointer(p) }
            let p = strdup(s)!
            table[s] = p
            return UnsafePointer(p)
        }
    }
}

/// A handle that keeps the calling thread's last failure (message and wait) for the host.
protocol FailureKeeper: AnyObject {
    func setFailure(_ text: String?, waitSeconds: Int64, shown: ShownMessage)
}

/// What a `passcode_store *` stands for: a back end (Backend.swift).
final class StoreBox: FailureKeeper, @unchecked Sendable {
    let backend: any StoreBackend
    /// The key of this handle's messages in each thread's message table.
    let id: UInt

    /// The embedded store; nil in service mode (kept here, so that no cast finds it).
    let store: PasscodeStore?

    init(_ backend: any StoreBackend, store: PasscodeStore?) {
        self.backend = backend
        self.store = store
        id = ThreadMessages.newID()
    }

    /// Set once the store was removed through this handle (`passcode_store_remove`).
    private var removed = false
    private let removedLock = Mutex()

    func markRemoved() { removedLock.withLock { removed = true } }

    /// Every call on a handle whose store it removed answers `PASSCODE_ERR_STORE_REMOVED`.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func checkNotRemoved() throws(PasscodeError) {
        if removedLock.withLock({ removed }) { throw PasscodeError.storeRemoved }
    }

    deinit { ThreadMessages.forget(id) }

    /// Records a failed call, for `passcode_errmsg`, `passcode_errwait` and `passcode_errmessage` on this thread.
    func setFailure(_ text: String?, waitSeconds: Int64 = 0, shown: ShownMessage = .none) {
        ThreadMessages.set(id, text, waitSeconds: waitSeconds, shown: shown)
    }

    var messagePointer: UnsafePointer<CChar>? { ThreadMessages.get(id) }
    var waitSeconds: Int64 { ThreadMessages.wait(id) }
    var shown: ShownMessage { ThreadMessages.shown(id) }
}

/// Each thread's last error message per handle, like errno: a thread's message pointer is
/// replaced only by that thread's own next failing call on the same handle, never by another's.
enum ThreadMessages {
    final class Table {
        var messages: [UInt: UnsafeMutablePointer<CChar>] = [:]
        var waits: [UInt: Int64] = [:]
        var shown: [UInt: ShownMessage] = [:]
        /// `passcode_message_text`'s last strings, the oldest replaced first.
        var texts: [UnsafeMutablePointer<CChar>?] = Array(repeating: nil, count: ThreadMessages.keptTexts)
        var nextText = 0
        deinit {
            messages.values.forEach { free($0) }
            texts.forEach { free($0) }
        }
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { raw in if let raw { Unmanaged<Table>.fromOpaque(raw).release() } }
        return k
    }()
    private static let counter = Mutex()
    nonisolated(unsafe) private static var next: UInt = 0

    static func newID() -> UInt { counter.withLock { next += 1; return next } }

    /// How many of `passcode_message_text`'s strings each thread keeps: a string stays valid
    /// through this thread's next 15 calls (so that a printf of several at once is safe).
    static let keptTexts = 16

    /// A copy of `text` kept for this thread, replacing its oldest kept text.
    static func keepText(_ text: String) -> UnsafePointer<CChar>? {
        let t = table
        free(t.texts[t.nextText])
        let p = strdup(text)
        t.texts[t.nextText] = p
        t.nextText = (t.nextText + 1) % keptTexts
        return p.map { UnsafePointer($0) }
    }

    private static var table: Table {
        if let raw = pthread_getspecific(key) { return Unmanaged<Table>.fromOpaque(raw).takeUnretainedValue() }
        let t = Table()
        pthread_setspecific(key, Unmanaged.passRetained(t).toOpaque())
        return t
    }

    static func set(_ id: UInt, _ text: String?, waitSeconds: Int64 = 0, shown: ShownMessage = .none) {
        let t = table
        if let old = t.messages.removeValue(forKey: id) { free(old) }
        if let text { t.messages[id] = strdup(text) }
        t.waits[id] = waitSeconds == 0 ? nil : waitSeconds
        t.shown[id] = shown.message == .none ? nil : shown
    }

    static func shown(_ id: UInt) -> ShownMessage { table.shown[id] ?? .none }

    static func get(_ id: UInt) -> UnsafePointer<CChar>? { table.messages[id].map { UnsafePointer($0) } }

    static func wait(_ id: UInt) -> Int64 { table.waits[id] ?? 0 }

    /// A closed handle's messages stay readable in other threads until they fail again or end;
    /// this thread's are freed at once.
    static func forget(_ id: UInt) {
        if let old = table.messages.removeValue(forKey: id) { free(old) }
        table.waits[id] = nil
        table.shown[id] = nil
    }
}

/// A snapshot handed to C (the session list, the event log) with the C strings it has lent out;
/// they live until the snapshot is freed.
final class SnapshotBox<Item>: @unchecked Sendable {
    let items: [Item]
    private var strings: [UnsafeMutablePointer<CChar>] = []
    init(_ items: [Item]) { self.items = items }
    deinit { strings.forEach { free($0) } }
    func keep(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        strings.append(p)
        return UnsafePointer(p)
    }
}

/// What a `passcode_options *` stands for.
final class OptionsBox: @unchecked Sendable {
    var options = StoreOptions()
    /// Service mode's application id (`passcode_options_set_service`); nil: the embedded store.
    var serviceAppID: String?
    /// The options the host chose that service mode refuses ("the clock", "the pepper", ...),
    /// in the order set: `passcode_open` in service mode names the first.
    var hostChoices: [String] = []

    /// Records that the host chose `option` (one service mode refuses).
    func chose(_ option: String) {
        if !hostChoices.contains(option) { hostChoices.append(option) }
    }
}

/// A table of live handles of one kind, keyed by the token handed out.
final class HandleTable<Box: AnyObject>: @unchecked Sendable {
    private let lock = Mutex()
    private var boxes: [UInt: Box] = [:]
    private var next: UInt

    init(tag: UInt) { next = tag << 40 }

    func add(_ box: Box) -> OpaquePointer {
        lock.withLock {
            next += 16
            boxes[next] = box
            return OpaquePointer(bitPattern: next)!
        }
    }

    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func get(_ handle: OpaquePointer?) -> Box? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return lock.withLock { boxes[key] }
    }

    /// The live handles' boxes that `belongs` picks.
    func boxes(where belongs: (Box) -> Bool) -> [Box] {
        lock.withLock { boxes.values.filter(belongs) }
    }

    @discardableResult
    func remove(_ handle: OpaquePointer?) -> Box? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return lock.withLock { boxes.removeValue(forKey: key) }
    }
}

enum Handles {
    static let stores = HandleTable<StoreBox>(tag: 0x5c)
    static let options = HandleTable<OptionsBox>(tag: 0x5d)
    /// The message of this thread's last failed `passcode_open`, for `passcode_errmsg(NULL)`.
    static let openMessage = OpenMessage()
}

/// `passcode_open` failures are kept under id 0 of the thread's message table.
final class OpenMessage: Sendable {
    func set(_ text: String) { ThreadMessages.set(0, text) }
    var pointer: UnsafePointer<CChar>? { ThreadMessages.get(0) }
}

/// Runs one C call on a handle: looks it up in `table`, runs `body`, records a failure for
/// `passcode_errmsg` and `passcode_errwait`, and returns the status.
@_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
func withHandle<Box: FailureKeeper>(_ table: HandleTable<Box>, _ handle: OpaquePointer?, _ body: (Box) throws(PasscodeError) -> Void) -> Int32 {
    guard let box = table.get(handle) else { return Status.errInvalidHandle.rawValue }
    do {
        try body(box)
        return Status.ok.rawValue
    } catch {
        box.setFailure(error.message, waitSeconds: error.waitSeconds, shown: Localized.shown(error))
        return error.status.rawValue
    }
}

/// The largest size a caller's buffer can have: 2^47 - 1 bytes (128 TiB), the whole user address
/// space of x86-64 with 4-level paging; a larger size, or one that runs past the end of the
/// address space from its pointer, is a caller's bug (`PASSCODE_ERR_MISUSE`), refused before the
/// buffer is touched.
let maxBufferBytes: UInt = (1 << 47) - 1

/// Whether `size` bytes from `pointer` cannot be a buffer (see `maxBufferBytes`).
func impossibleBuffer(_ pointer: UnsafeRawPointer?, _ size: UInt) -> Bool {
    if size > maxBufferBytes { return true }
    guard let pointer else { return false }
    return UInt(bitPattern: pointer).addingReportingOverflow(size).overflow
}

/// A call refused before its handle is looked at (an argument no buffer can have): the message
/// goes to the handle when it is valid, to `passcode_errmsg(NULL)` otherwise.
func refused<Box: FailureKeeper>(_ table: HandleTable<Box>, _ handle: OpaquePointer?, _ error: PasscodeError) -> Int32 {
    if let box = table.get(handle) { box.setFailure(error.message, waitSeconds: 0, shown: error.shown) } else { Handles.openMessage.set(error.message) }
    return error.status.rawValue
}

/// `withHandle` for the calls both back ends offer (Backend.swift).
@_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
func withBackend(_ handle: OpaquePointer?, _ body: (any StoreBackend) throws(PasscodeError) -> Void) -> Int32 {
    withHandle(Handles.stores, handle) { (box) throws(PasscodeError) in
        try box.checkNotRemoved()
        try body(box.backend)
    }
}

/// `withHandle` for the calls only the embedded store offers. In service mode: refused with
/// `PASSCODE_ERR_REFUSED_IN_SERVICE_MODE` when `refusedInService` names what the call would let
/// the host do (the message says that, in words a caller of any binding reads: no C function's
/// name), else `PASSCODE_ERR_NOT_IN_SERVICE_MODE` naming the call.
func withStore(_ handle: OpaquePointer?, refusedInService: String? = nil, function: String = #function,
               _ body: (PasscodeStore) throws(PasscodeError) -> Void) -> Int32 {
    withHandle(Handles.stores, handle) { (box) throws(PasscodeError) in
        try box.checkNotRemoved()
        guard let store = box.store else {
            if let what = refusedInService {
                throw PasscodeError.refusedInServiceMode("\(what) is refused in service mode: the service decides it alone")
            }
            let name = function.prefix(while: { $0 != "(" })
            throw PasscodeError.notInServiceMode("\(name) is not offered by the passcode service yet; the embedded store offers it")
        }
        try body(store)
    }
}

/// Copies a caller's secret (digits or a code) into a wiped-on-release buffer.
func secret(_ pointer: UnsafePointer<CChar>?, _ length: UInt, what: String) throws(PasscodeError) -> SecretBytes {
    guard let pointer else { throw PasscodeError.misuse("\(what) is NULL") }
    guard length <= 4096 else { throw PasscodeError.format("\(what) is too long") }
    return SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
}

/// Writes `value` through an out-pointer that must not be NULL.
@_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
func put<T>(_ out: UnsafeMutablePointer<T>?, _ value: T) throws(PasscodeError) {
    guard let out else { throw PasscodeError.misuse("the out pointer is NULL") }
    out.pointee = value
}
