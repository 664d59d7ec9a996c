// Proofs of the passcode, one per bus connection: a weakening change (a setting, the lockout
// table) needs the passcode entered within 5 minutes "on this handle", and in service mode the
// host's handle is its connection. The stores' handles are shared by a uid's connections, so
// the proof a call leaves on one is moved here after the call and back before the next call
// of the same connection; another connection, or another process of the same user, starts
// with none. The 5 minutes are the core's rule, on the service's own clock.
import Glibc
import PasscodeCore

final class ProofBook: @unchecked Sendable {
    static let shared = ProofBook()
    /// A bound on the proofs kept (a unique name is never reused on a bus, so a closed
    /// connection's entry only waits to be dropped): past it every proof is dropped, and the
    /// next weakening change asks for the passcode again (the safe side).
    static let maxEntries = 16384

    private let lock = Mutex()
    private var proofs: [String: BootInstant] = [:]

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
            store.connectionProof = nil
            return try body()
        }
        let name = "\(Unmanaged<Caller>.fromOpaque(raw).takeUnretainedValue().sender) \(uid) \(appID)"
        store.connectionProof = lock.withLock { proofs[name] }
        defer {
            let left = store.connectionProof
            store.connectionProof = nil
            lock.withLock {
                if left != nil && proofs[name] == nil && proofs.count >= ProofBook.maxEntries { proofs.removeAll() }
                proofs[name] = left
            }
        }
        return try body()
    }
}
