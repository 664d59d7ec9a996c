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
import PasscodeBus
import PasscodeCore

final class ProofBook: @unchecked Sendable {
    static let shared = ProofBook()
    /// Bounds on the states kept. A closed connection's entries go when the bus says it left
    /// (`forget`, from NameOwnerChanged), so a uid's live entries are at most its connections (the
    /// system bus allows a user 256) times the app ids each uses (a uid has at most 32 stores).
    /// Past a connection's bound its own entries go; past a uid's, another connection's of that
    /// uid with the most entries (never the caller's, never another uid's); past the whole bound,
    /// every entry. Each is the safe side: the next weakening change asks for the passcode again.
    static let maxPerConnection = 32
    static let maxPerUID = 256 * 32
    static let maxEntries = 65536

    private let lock = Mutex()
    /// Each connection's state (its proof, its chosen length) by uid, unique name and app id.
    private var proofs: [uid_t: [String: [String: ConnectionState]]] = [:]
    private var count = 0

    /// Drops every entry of the connection `sender` (it left the bus).
    func forget(sender: String) {
        lock.withLock {
            for (uid, var mine) in proofs {
                guard let gone = mine.removeValue(forKey: sender) else { continue }
                count -= gone.count
                proofs[uid] = mine.isEmpty ? nil : mine
            }
        }
    }

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
    func carried<R>(on store: PasscodeStore, uid: uid_t, appID: AppID, _ body: () throws -> R) rethrows -> R {
        let name = pthread_getspecific(ProofBook.key).map { Unmanaged<Caller>.fromOpaque($0).takeUnretainedValue().sender }
        var hooks = HookRelay.current?.hooks ?? Hooks()
        // A ResetRequest call: passcoded mails the code itself (Service+Mail.swift).
        if let deliver = MailDelivery.current { hooks.deliverResetCode = deliver }
        let state = CallerState(hooks: hooks,
                                connection: name.flatMap { name in lock.withLock { proofs[uid]?[name]?[appID.name] } } ?? ConnectionState())
        let scopes = ProofBook.scopes, handle = ObjectIdentifier(store)
        let outer = scopes.byHandle[handle]
        scopes.byHandle[handle] = state
        defer {
            scopes.byHandle[handle] = outer
            // Read after the call on this thread: only this call wrote it (under the handle's lock).
            if let name { lock.withLock { keep(state.connection, uid: uid, sender: name, appID: appID.name) } }
        }
        return try body()
    }

    /// Records `state` (empty: none) for `sender`'s `appID` of `uid`, within the bounds. Under `lock`.
    private func keep(_ state: ConnectionState, uid: uid_t, sender: String, appID: String) {
        let proof: ConnectionState? = state.isEmpty ? nil : state
        var mine = proofs[uid] ?? [:]
        var connection = mine[sender] ?? [:]
        let had = connection[appID] != nil
        if proof != nil && !had {
            if connection.count >= ProofBook.maxPerConnection {  // its own entries first
                count -= connection.count
                connection.removeAll()
            }
            let uidCount = mine.values.reduce(0) { $0 + $1.count }
            if uidCount >= ProofBook.maxPerUID,
               let largest = mine.filter({ $0.key != sender }).max(by: { $0.value.count < $1.value.count }) {
                count -= largest.value.count
                mine[largest.key] = nil
            }
            if count >= ProofBook.maxEntries {
                proofs.removeAll()
                mine.removeAll()
                connection.removeAll()
                count = 0
            }
        }
        connection[appID] = proof
        count += (proof != nil ? 1 : 0) - (had ? 1 : 0)
        mine[sender] = connection.isEmpty ? nil : connection
        proofs[uid] = mine.isEmpty ? nil : mine
    }
}
