// The stores as objects with properties (CPasscodeBus/passcode_bus_props.c), pushed, not polled:
// a connection calls Watch(app_id) once; from then on, whenever any call through passcoded
// (another connection of the uid, root, the connection itself) leaves that store of the caller's
// uid changed, passcoded sends PropertiesChanged, addressed to that connection alone, before the
// reply of the call that changed it. Nothing is broadcast: another uid neither reads a store's
// properties (the getters answer the caller's own uid) nor receives its signals (sent to the
// watchers of the store's uid only). A watcher that leaves the bus is forgotten (NameOwnerChanged).
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

/// What a book of watched objects pushes of one store (PushBook): a snapshot, its props struct
/// and how a PropertiesChanged of it is sent. The stores' objects (PushedState) and the login
/// stores' objects read by uid (LoginSnapshot, Service+Login.swift) are two such books.
protocol PushSnapshot: Equatable {
    associatedtype Props
    func props(generation: UInt64) -> Props
    /// What is pushed when the store cannot be read (settled 0: the watcher asks the bus).
    static func unreadable(generation: UInt64) -> Props
    /// Sends PropertiesChanged of `uid`'s store `app` to `destination` alone; 0 or a negative errno.
    static func send(_ bus: OpaquePointer, to destination: String, uid: uid_t, app: String, _ props: inout Props) -> Int32
}

/// What is pushed of one store: the lock screen's fields and the state queries'.
struct PushedState: PushSnapshot {
    var screen: LockScreen
    /// No field depends on the time it is read: they hold until the next push (else the client asks).
    var clockFree: Bool

    func props(generation: UInt64) -> passcode_bus_props {
        // One argument per property of the XML (the struct is generated: include/passcode_bus_store.h).
        passcode_bus_props(generation: generation, settled: clockFree ? 1 : 0, is_set: screen.passcodeSet ? 1 : 0,
                           lock_enabled: screen.lockEnabled ? 1 : 0, failed_attempts: UInt32(clamping: screen.failedAttempts),
                           lockout_remaining: screen.lockoutSeconds, reset_required: screen.resetRequired ? 1 : 0,
                           locked: screen.status.locked ? 1 : 0, reason: screen.status.reason.rawValue,
                           biometric_refusal: screen.refusal.rawValue, biometric_lead: screen.lead ? 1 : 0,
                           biometric_kind: screen.kind.rawValue)
    }

    static func unreadable(generation: UInt64) -> passcode_bus_props {
        var p = passcode_bus_props()
        p.generation = generation
        return p
    }

    static func send(_ bus: OpaquePointer, to destination: String, uid: uid_t, app: String, _ props: inout passcode_bus_props) -> Int32 {
        passcode_bus_send_props_changed(bus, destination, app, &props)
    }
}

/// The stores' objects (Watch): each caller's own uid's.
enum PushedStates {
    static let shared = PushBook<PushedState>()
}

/// The bounds of each book of watches.
enum WatchLimits {
    /// The stores one connection may watch (a uid has at most 32 stores; a watch of an app id
    /// without one keeps an entry too): past it Watch is refused, never an entry dropped.
    static let maxWatchesPerConnection = 64
    /// The watches of one uid's connections together (the system bus lets a user keep 256
    /// connections), and of everyone: past either, Watch is refused until connections close.
    static let maxWatchesPerUID = 256 * 64
    static let maxWatches = 65536
}

/// The watched objects of one kind: who watches which store (of which uid), the last state
/// pushed of each, and the signals queued for the bus thread.
final class PushBook<S: PushSnapshot>: @unchecked Sendable {

    /// One watched store of one uid. `lock` orders its pushes: the snapshot is read and queued
    /// under it, so the last one queued is never older than a change made before it was read.
    final class Entry: @unchecked Sendable {  // its fields under `lock`
        let lock = Mutex()
        var watchers: Set<String> = []
        var last: S?
        var generation: UInt64 = 0
    }

    private let mutex = Mutex()
    /// By "uid/app id".
    private var entries: [String: Entry] = [:]
    /// The keys each connection watches ("uid/app id": the store's uid, which is the connection's
    /// own but for a login store read by root or a greeter account), and the connection's uid.
    private var watching: [String: (uid: uid_t, keys: Set<String>)] = [:]
    /// The watches of each uid's connections, and of all.
    private var perUID: [uid_t: Int] = [:]
    private var total = 0
    /// Signals for the bus thread, in the order queued (under `outboxLock`: taken under an
    /// entry's lock, which `mutex` is never taken under).
    private let outboxLock = Mutex()
    private var outbox: [(destination: String, uid: uid_t, app: String, props: S.Props)] = []

    private static func key(_ uid: uid_t, _ app: String) -> String { "\(uid)/\(app)" }

    /// Registers `sender` (a connection of `caller`, by default `uid` itself) as a watcher of
    /// `uid`'s store `app`. On the bus thread, while the call is taken: the bus delivers a
    /// connection's calls before the news that it left, so `forget` always finds what a Watch
    /// registered (registered later, on a worker, a Watch queued by a connection that then closed
    /// would stay for good). Its bounds are counted against `caller`.
    func register(uid: uid_t, app: String, sender: String, caller: uid_t? = nil) throws -> Entry {
        let k = PushBook.key(uid, app)
        let by = caller ?? uid
        return try mutex.withLock { () -> Entry in
            var mine = watching[sender] ?? (by, [])
            if !mine.keys.contains(k) {
                let refusal: String? =
                    mine.keys.count >= WatchLimits.maxWatchesPerConnection
                        ? "this connection watches \(WatchLimits.maxWatchesPerConnection) stores already"
                    : perUID[by, default: 0] >= WatchLimits.maxWatchesPerUID
                        ? "this user's connections watch \(WatchLimits.maxWatchesPerUID) stores already"
                    // The global bound never refuses a uid's first watch (reserved).
                    : total >= WatchLimits.maxWatches && perUID[by, default: 0] > 0
                        ? "passcoded watches \(WatchLimits.maxWatches) stores already" : nil
                if let refusal { throw CallError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: refusal) }
                mine.keys.insert(k)
                watching[sender] = mine
                perUID[by, default: 0] += 1
                total += 1
            }
            let e = entries[k] ?? Entry()
            entries[k] = e
            e.lock.withLock { _ = e.watchers.insert(sender) }
            return e
        }
    }

    /// The state of a watched store now, with its generation (on a worker, in the call's scope).
    func answer(_ entry: Entry, read: () throws -> S) throws -> (S, UInt64) {
        try entry.lock.withLock {
            let state = try read()
            if state != entry.last {
                entry.generation += 1
                entry.last = state
            }
            return (state, entry.generation)
        }
    }

    /// After a call used `uid`'s store `app` (it may have changed it): when watched, the state
    /// read now is queued for every watcher if it differs from the last one pushed.
    func changed(uid: uid_t, app: String, read: () throws -> S) {
        guard let entry = mutex.withLock({ entries[PushBook.key(uid, app)] }) else { return }
        entry.lock.withLock {
            guard !entry.watchers.isEmpty else { return }
            // A store that cannot be read now (removed, damaged) pushes nothing; the watchers'
            // next query goes to the bus (their copy is cleared) and gets the failure itself.
            let state = try? read()
            guard state != entry.last else { return }
            entry.generation += 1
            entry.last = state
            let props = state?.props(generation: entry.generation) ?? S.unreadable(generation: entry.generation)  // settled 0: ask the bus
            outboxLock.withLock {
                for w in entry.watchers.sorted() { outbox.append((w, uid, app, props)) }
            }
        }
        var one: UInt64 = 1
        _ = write(HookOutbox.shared.wakeFD, &one, 8)
    }

    /// The connection `sender` left the bus: it watches nothing any more.
    func forget(sender: String) {
        mutex.withLock {
            guard let (uid, keys) = watching.removeValue(forKey: sender) else { return }
            perUID[uid] = perUID[uid, default: 0] - keys.count > 0 ? perUID[uid, default: 0] - keys.count : nil
            total -= keys.count
            for k in keys {
                guard let e = entries[k] else { continue }
                let empty = e.lock.withLock { () -> Bool in
                    e.watchers.remove(sender)
                    return e.watchers.isEmpty
                }
                if empty { entries[k] = nil }
            }
        }
    }

    /// Whether the connection `sender` watches `uid`'s store `app` (it was admitted to it by Watch);
    /// `ownOnly`: and is a connection of `uid` itself.
    func isWatcher(_ sender: String, uid: uid_t, app: String, ownOnly: Bool = true) -> Bool {
        mutex.withLock {
            (!ownOnly || watching[sender]?.uid == uid) && watching[sender]?.keys.contains(PushBook.key(uid, app)) == true
        }
    }

    /// The last state pushed of `uid`'s store `app` (the getters), or nil when not watched.
    func lookup(uid: uid_t, app: String) -> S.Props? {
        guard let e = mutex.withLock({ entries[PushBook.key(uid, app)] }) else { return nil }
        return e.lock.withLock { e.last.map { $0.props(generation: e.generation) } }
    }

    /// Sends the queued signals (bus thread), each addressed to its watcher alone. Called after
    /// the finished answers were taken and before they are sent: a change reaches every watcher
    /// before the reply of the call that made it.
    func drain(_ bus: OpaquePointer) {
        let queued = outboxLock.withLock { () -> [(destination: String, uid: uid_t, app: String, props: S.Props)] in
            let taken = outbox
            outbox = []
            return taken
        }
        for var signal in queued {
            let r = S.send(bus, to: signal.destination, uid: signal.uid, app: signal.app, &signal.props)
            if r < 0 { log("PropertiesChanged to \(signal.destination) not sent: \(String(cString: strerror(-r)))") }
        }
    }

}

extension PushedState {
    /// The state of `store` as pushed.
    static func read(_ store: PasscodeStore) throws -> PushedState {
        let (screen, clockFree) = try store.lockScreenReading()
        return PushedState(screen: screen, clockFree: clockFree)
    }
}

extension Service {
    /// Watch(app_id) -> (path, generation, settled, is_set, lock_enabled, failed_attempts,
    /// lockout_remaining, reset_required, locked, reason, refusal, lead, kind): the caller's store
    /// as now, and from now on its PropertiesChanged, addressed to the calling connection.
    func handleWatch(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, m = call.message, caller = call.caller
        guard let s = sd_bus_message_get_sender(m), s.pointee == CChar(UInt8(ascii: ":")) else {
            throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller has no unique name")
        }
        let sender = String(cString: s)
        guard let cPath = passcode_bus_store_path(app.name) else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "app_id") }
        let path = String(cString: cPath)
        free(cPath)
        let entry = try PushedStates.shared.register(uid: caller, app: app.name, sender: sender)  // here, on the bus thread
        return Prepared(uid: caller) {
            let (state, generation) = try PushedStates.shared.answer(entry) {
                try stores.withStoreForQuery(uid: caller, appID: app) { try PushedState.read($0) }
            }
            // The path, then the properties as the getters and PropertiesChanged answer them.
            return [.string(path)] + Service.storePropertyValues(state.props(generation: generation))
        }
    }
}

extension StoreRoot {
    /// After a call used `uid`'s store `appID` on `store`: its watchers are told when it changed.
    func pushChanges(uid: uid_t, appID: AppID, _ store: PasscodeStore) {
        PushedStates.shared.changed(uid: uid, app: appID.name) { try PushedState.read(store) }
        if Service.isLoginStore(appID) { LoginPushes.shared.changed(uid: uid, app: appID.name) { try LoginSnapshot.read(store) } }
    }

    /// After `uid`'s store `appID` was removed (its handle dropped): what a query answers now.
    func pushRemoval(uid: uid_t, appID: AppID) {
        PushedStates.shared.changed(uid: uid, app: appID.name) { try withStoreForQuery(uid: uid, appID: appID) { try PushedState.read($0) } }
        if Service.isLoginStore(appID) {
            LoginPushes.shared.changed(uid: uid, app: appID.name) { try withStoreForQuery(uid: uid, appID: appID) { try LoginSnapshot.read($0) } }
        }
    }
}
