// Each bus connection's own state: the proof of the passcode a weakening change (a setting, the
// lockout table, the recovery key) needs, entered within 5 minutes "on this handle", and the
// length it chose for a first passcode; in service mode the host's handle is its connection.
// The stores' handles are shared by a uid's connections, whose calls overlap where one waits on
// its host's hook (Scheduler), so a call's state never goes into the handle: the handle asks the
// calling thread for it (`PasscodeStore.callers`, set on every handle `StoreRoot` opens for
// callers), and the thread has the state of its call's connection, kept here between calls, and
// the hooks of that connection (HookRelay). Another connection, or another process of the same
// user, starts with none. The 5 minutes are the core's rule, on the service's own clock; a proof
// names its passcode, so it dies with it.
import Glibc
import PasscodeCore

final class ProofBook: @unchecked Sendable {
    static let shared = ProofBook()
    /// Bounds on the proofs kept (a unique name is never reused on a bus, so a closed
    /// connection's entry only waits to be dropped). Past a uid's bound its own proofs are
    /// dropped (a uid making proofs on thousands of connections forgets its own, not another
    /// uid's); past the whole bound, every proof: the next weakening change asks for the
    /// passcode again (the safe side).
    static let maxPerUID = 1024
    static let maxEntries = 65536

    private let lock = Mutex()
    /// Each connection's state (its proof, its chosen length) by uid, then by "<unique name> <app id>".
    private var proofs: [uid_t: [String: ConnectionState]] = [:]
    private var count = 0

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The sender (unique bus name) of the call running on this worker thread.
    private final class Caller {
        let sender: String
        init(_ sender: String) { self.sender = sender }
    }

    /// Wraps a call's work so that, while it runs, the stores it uses answer `sender`'s state.
    static func forCaller(_ sender: String?, _ work: @escaping @Sendable () throws -> [Service.Value])
        -> @Sendable () throws -> [Service.Value] {
        guard let sender else { return work }
        return {
            let caller = Unmanaged.passRetained(Caller(sender))
            pthread_setspecific(ProofBook.key, caller.toOpaque())
            defer {
                pthread_setspecific(ProofBook.key, nil)
                caller.release()
            }
            return try work()
        }
    }

    /// The callers' states current on this worker thread, by handle (`carried`).
    private final class Scopes {
        var byHandle: [ObjectIdentifier: CallerState] = [:]
    }
    private static let scopesKey: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// This thread's scopes (made at its first call: worker threads live as long as the daemon).
    private static var scopes: Scopes {
        if let raw = pthread_getspecific(scopesKey) { return Unmanaged<Scopes>.fromOpaque(raw).takeUnretainedValue() }
        let made = Unmanaged.passRetained(Scopes())
        pthread_setspecific(scopesKey, made.toOpaque())
        return made.takeUnretainedValue()
    }

    /// Makes `store` ask the calling thread for its caller's hooks and connection state. A thread
    /// with no call on it for this handle gets none: no proof, no length, no hooks, and what it
    /// leaves is dropped (never the handle's, which another caller would then see).
    static func serveCallers(of store: PasscodeStore) {
        let handle = ObjectIdentifier(store)
        store.callers = { ProofBook.scopes.byHandle[handle] ?? CallerState() }
    }

    /// Runs `body` with `store` (served by `serveCallers`) answering the current caller's state
    /// for `uid`'s `appID`, with the caller's hooks (HookRelay), and keeps what the call left (a
    /// passcode entered: a new proof; none: the old one). A call with no known sender has none.
    /// The state is this thread's while the call runs, so the uid's other connections' calls,
    /// which run while this one waits on its host's hook, neither see it nor change it; a
    /// connection's own calls run one at a time (Scheduler), so none of them overlaps another.
    func carried<R>(on store: PasscodeStore, uid: uid_t, appID: String, _ body: () throws -> R) rethrows -> R {
        let name = pthread_getspecific(ProofBook.key).map { "\(Unmanaged<Caller>.fromOpaque($0).takeUnretainedValue().sender) \(appID)" }
        let state = CallerState(hooks: HookRelay.current?.hooks ?? Hooks(),
                                connection: name.flatMap { name in lock.withLock { proofs[uid]?[name] } } ?? ConnectionState())
        let scopes = ProofBook.scopes, handle = ObjectIdentifier(store)
        let outer = scopes.byHandle[handle]
        scopes.byHandle[handle] = state
        defer {
            scopes.byHandle[handle] = outer
            // Read after the call on this thread: only this call wrote it (under the handle's lock).
            if let name { lock.withLock { keep(state.connection, uid: uid, name: name) } }
        }
        return try body()
    }

    /// Records `proof` (nil: none) for `name` of `uid`, within the bounds. Under `lock`.
    private func keep(_ state: ConnectionState, uid: uid_t, name: String) {
        let proof: ConnectionState? = state.isEmpty ? nil : state
        var mine = proofs[uid] ?? [:]
        let had = mine[name] != nil
        if proof != nil && !had {
            if mine.count >= ProofBook.maxPerUID {
                count -= mine.count
                mine.removeAll()
            }
            if count >= ProofBook.maxEntries {
                proofs.removeAll()
                mine.removeAll()
                count = 0
            }
        }
        mine[name] = proof
        count += (proof != nil ? 1 : 0) - (had ? 1 : 0)
        proofs[uid] = mine.isEmpty ? nil : mine
    }
}
