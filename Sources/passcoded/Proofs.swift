// Each bus connection's own state: the proof of the passcode a weakening change (a setting, the
// lockout table, the recovery key) needs, entered within 5 minutes "on this handle", and the
// length it chose for a first passcode; in service mode the host's handle is its connection.
// The stores' handles are shared by a uid's connections, so the state a call leaves on one is
// moved here after the call and back before the next call of the same connection; another
// connection, or another process of the same user, starts with none. The 5 minutes are the
// core's rule, on the service's own clock; a proof names its passcode, so it dies with it.
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

    /// Wraps a call's work so that, while it runs, the stores it uses carry `sender`'s proof.
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

    /// Runs `body` on `store` holding the current caller's proof for `uid`'s `appID`, and keeps
    /// what the call left (a passcode entered: a new proof; none: the old one); the handle holds
    /// no proof outside a call. A call with no known sender has none.
    func carried<R>(on store: PasscodeStore, uid: uid_t, appID: String, _ body: () throws -> R) rethrows -> R {
        guard let raw = pthread_getspecific(ProofBook.key) else {
            store.connectionState = ConnectionState()
            return try body()
        }
        let name = "\(Unmanaged<Caller>.fromOpaque(raw).takeUnretainedValue().sender) \(appID)"
        store.connectionState = lock.withLock { proofs[uid]?[name] } ?? ConnectionState()
        defer {
            let left = store.connectionState
            store.connectionState = ConnectionState()
            lock.withLock { keep(left, uid: uid, name: name) }
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
