// passcoded checks a finger itself, through fprintd (passcode_fprint.c): the host only asks. The
// wait runs on a worker, on a bus connection of its own, so the bus thread keeps answering, and
// with the worker's and the uid's turns given up, so the uid's other calls run meanwhile. The
// rules stay the core's: a match is the core's biometric unlock (per boot, 48 hours, 5 failed
// matches, the key only if held since a passcode unlock), a no-match its failed match. Whether a
// reader with an enrolled finger exists is fprintd's answer, written to the store as the
// availability the policy reads. Timeout, a busy reader, no reader or no finger count nothing.
// The reader is claimed only for a caller at the machine: the calling process's own logind
// session active, local and on a seat (passcode_seat.c), and at most `readerClaims.limit` times a
// minute per uid (ReaderClaims), so that no other user keeps it busy.
// pam_passcode's `fingerprint` option reads a finger for a user's login store by uid
// (UserFingerprintReady, UserFingerprintUnlock): root, or the user's own process (a screen
// locker). There the PAM stack is the switch that turns the finger on (the core's
// loginFingerprintRefusal); every other rule is the core's. The module cancels a read by
// closing its connection: the wait watches the caller's unique name (the C verify's `caller`
// argument) and ends, releasing the reader, when it leaves the bus.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    /// passcoded.conf's fprint_timeout (seconds), set once at start.
    nonisolated(unsafe) static var fprintTimeoutSeconds = 30

    /// How often each uid had the reader claimed: passcoded.conf's fprint_checks_per_minute.
    static let readerClaims = ReaderClaims()

    func handleFingerprintUnlock(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller, pid = try Service.callerPID(call)
        let sender = sd_bus_message_get_sender(call.message).map { String(cString: $0) }
        return Prepared(uid: caller) {
            _ = try Service.fingerprintUnlock(stores, uid: caller, pid: pid, app: app, needKey: false, sender: sender)
            return []
        }
    }

    func handleUserFingerprintReady(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, caller = call.caller, pid = try Service.callerPID(call), target = uid
        return Prepared(uid: target) {
            let why = try Service.fingerprintNotReady(stores, uid: target, caller: caller, pid: pid, app: app)
            return [.bool(why == nil), .string(why ?? "")]
        }
    }

    func handleUserFingerprintUnlock(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, caller = call.caller, pid = try Service.callerPID(call), target = uid
        let sender = sd_bus_message_get_sender(call.message).map { String(cString: $0) }
        return Prepared(uid: target) {
            _ = try Service.fingerprintUnlock(stores, uid: target, caller: caller, pid: pid, app: app, needKey: false,
                                              byStack: Service.isLoginStore(app), sender: sender)
            return []
        }
    }

    /// Why no finger may be read now for `uid`'s store (nil: it may): the caller not at the
    /// machine, no reader or no finger enrolled (fprintd's answer, written as the store's
    /// availability), or the core's refusal. Nothing is claimed or counted.
    static func fingerprintNotReady(_ stores: StoreRoot, uid: uid_t, caller: uid_t, pid: pid_t, app: AppID) throws -> String? {
        if let away = seatRefusal(uid: caller, pid: pid) { return away }
        var buffer = [CChar](repeating: 0, count: 512)
        let probe = passcode_fprint_probe(uid, &buffer, buffer.count)
        let available = probe == Int32(PASSCODE_FPRINT_OK)
        let refusal = try stores.withStore(uid: uid, appID: app) { (s) throws -> BiometricRefusal in
            try s.setBiometricAvailability(available, kind: available ? .fingerprint : try s.biometricKind())
            return Service.isLoginStore(app) ? try s.loginFingerprintRefusal() : try s.biometricRefusal()
        }
        if !available { return message(buffer) }
        if refusal != .none { return refusal.description }
        if let wait = readerClaims.pending(uid: uid) {
            return "too many fingerprint checks: \(readerClaims.limit) a minute for a user; the next is allowed in \(wait) seconds"
        }
        return nil
    }

    func handleFingerprintUnlockKey(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller, pid = try Service.callerPID(call)
        let sender = sd_bus_message_get_sender(call.message).map { String(cString: $0) }
        return Prepared(uid: caller) {
            guard let key = try Service.fingerprintUnlock(stores, uid: caller, pid: pid, app: app, needKey: true, sender: sender) else {
                throw PasscodeError.keyNotReleased
            }
            return [.key(key)]
        }
    }

    /// The calling process's pid, from the bus daemon's record of the connection, read on the bus
    /// thread while the message is there: logind is asked for that process's session.
    static func callerPID(_ call: BusCall) throws -> pid_t {
        var pid: pid_t = 0
        guard passcode_bus_sender_pid(call.message, &pid) >= 0 else {
            throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller's process cannot be established")
        }
        return pid
    }

    /// The NUL-terminated message passcode_fprint_* wrote into `buffer`.
    static func message(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A failure of the reader as a status of its own kind, with fprintd's reason.
    static func fingerprintFailure(_ outcome: Int32, _ message: String) -> CallError {
        let status: Int32
        switch outcome {
        case Int32(PASSCODE_FPRINT_NO_READER), Int32(PASSCODE_FPRINT_NO_FINGER): status = BusStatus.errBiometricUnavailable
        case Int32(PASSCODE_FPRINT_BUSY): status = BusStatus.errBiometricReaderBusy
        // No finger in time: still locked; the screen offers another try or the passcode.
        case Int32(PASSCODE_FPRINT_TIMEOUT): status = BusStatus.errBiometricTimeout
        default: status = PasscodeError.io("").busStatus
        }
        let (name, text) = BusError.reply(status: status, message: message + "; nothing was counted")
        return CallError(name: name, message: text)
    }

    /// Whether the caller may have the reader claimed for it: its process's own session at the
    /// machine (logind), else BiometricUnavailable with logind's reason, nothing counted. Root's
    /// calls are asked of root's own process's session too (any user's session at the seat will
    /// do for root: a sudo in the user's session at the seat; login on a text console, which
    /// has no session before it authenticates, is not at the machine for this rule).
    static func checkAtSeat(uid: uid_t, pid: pid_t) throws {
        guard let away = seatRefusal(uid: uid, pid: pid) else { return }
        let (name, text) = BusError.reply(status: BusStatus.errBiometricUnavailable, message: away + "; nothing was counted")
        throw CallError(name: name, message: text)
    }

    /// Why the caller is not at the machine (nil: it is), as checkAtSeat says it.
    static func seatRefusal(uid: uid_t, pid: pid_t) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let seat = passcode_seat_check(pid, uid, &buffer, buffer.count)
        guard seat != Int32(PASSCODE_SEAT_YES) else { return nil }
        return "the fingerprint reader is only for a user at the machine (an active local session on a seat): \(message(buffer))"
    }

    /// Reads a finger for `uid`'s store. `caller`: whose process asks (the seat check's uid; root
    /// for pam_passcode in sudo or login); `byStack`: a login store whose PAM stack turned the
    /// finger on; `sender`: the calling connection, whose leaving the bus ends the wait.
    static func fingerprintUnlock(_ stores: StoreRoot, uid: uid_t, caller: uid_t? = nil, pid: pid_t, app: AppID, needKey: Bool,
                                  byStack: Bool = false, sender: String? = nil) throws -> SecretBytes? {
        try checkAtSeat(uid: caller ?? uid, pid: pid)
        var buffer = [CChar](repeating: 0, count: 512)
        // fprintd first: a reader with a finger of this user's, written as the availability the
        // core's policy reads; then the policy, before a finger is asked for.
        let probe = passcode_fprint_probe(uid, &buffer, buffer.count)
        let available = probe == Int32(PASSCODE_FPRINT_OK)
        let lockedBefore = try stores.withStore(uid: uid, appID: app) { (s) throws -> Bool in
            try s.setBiometricAvailability(available, kind: available ? .fingerprint : try s.biometricKind())
            if available {
                // For the key, the refusal includes a handle holding none ("lock now" wiped it):
                // no finger is asked for whose match could release nothing.
                let refusal = needKey ? try s.biometricKeyRefusal() : byStack ? try s.loginFingerprintRefusal() : try s.biometricRefusal()
                if refusal != .none { throw PasscodeError.passcodeRequired(refusal) }
            }
            return try s.lockStatus().locked
        }
        guard available else { throw fingerprintFailure(probe, message(buffer)) }
        if let wait = readerClaims.take(uid: uid) {
            let (name, text) = BusError.reply(status: BusStatus.errRateLimited,
                                              message: "too many fingerprint checks: \(readerClaims.limit) a minute for a user; "
                                                  + "the next is allowed in \(wait) seconds; nothing was counted")
            throw CallError(name: name, message: text)
        }
        let timeout = UInt64(fprintTimeoutSeconds) * 1_000_000
        // A passcode unlock of this store while the finger is awaited ends the wait and releases
        // the reader at once (FingerWaits), not at fprint_timeout.
        let wait = FingerWaits.shared.add(uid: uid, app: app, watched: lockedBefore)
        defer { FingerWaits.shared.remove(wait) }
        // The wait holds a thread, not a turn (as a host's hook does): the uid's other
        // connections, and other uids, run meanwhile (Scheduler.whileWaiting).
        guard let outcome = Scheduler.shared?.whileWaiting({ passcode_fprint_verify(uid, timeout, wait.flag, sender, &buffer, buffer.count) }) else {
            // passcoded's own limit, not the reader's: BUSY, as a busy store answers.
            let (name, text) = BusError.reply(status: BusStatus.errBusy,
                                              message: "too many checks wait on readers or hooks at once; try again; nothing was counted")
            throw CallError(name: name, message: text)
        }
        switch outcome {
        case Int32(PASSCODE_FPRINT_MATCH):
            return try stores.withStore(uid: uid, appID: app) { (s) throws -> SecretBytes? in
                if needKey { return try s.biometricUnlockKey() }
                if byStack { try s.loginFingerprintUnlock() } else { try s.biometricUnlock() }
                return nil
            }
        case Int32(PASSCODE_FPRINT_CALLER_GONE):
            throw PasscodeError.state("the caller left the bus while the reader waited for a finger: the reader was released; "
                                      + "nothing was counted")
        case Int32(PASSCODE_FPRINT_CANCELLED):
            throw PasscodeError.state("the passcode unlocked the app while the reader waited for a finger: the reader was "
                                      + "released; nothing was counted")
        case Int32(PASSCODE_FPRINT_NO_MATCH):
            let failures = try stores.withStore(uid: uid, appID: app) { (s) throws -> Int64 in
                // Two reads that both began under the budget (two logins, one after the other on
                // the reader): a no-match once 5 failed is not counted again.
                if byStack, try s.loginFingerprintRefusal() == .tooManyBiometricFailures { return BiometricPolicy.maxBiometricFailures }
                return try s.biometricFailed()
            }
            let (name, text) = BusError.reply(status: BusStatus.errPasscodeRequired,
                                              message: "the finger did not match (\(failures) failed since the last unlock)")
            throw CallError(name: name, message: text)
        default:
            throw fingerprintFailure(outcome, message(buffer))
        }
    }
}

/// How often each uid had the reader claimed: at most `limit` claims in any 60 seconds on the
/// monotonic clock. In memory only (a restart forgets it, as it forgets a claim); a uid's entry
/// holds at most `limit` times and goes once they are all older than a minute.
final class ReaderClaims: @unchecked Sendable {
    /// passcoded.conf's fprint_checks_per_minute, set once at start.
    var limit = 6
    private let lock = Mutex()
    private var claims: [uid_t: [UInt64]] = [:]

    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The seconds until `uid` may have the reader claimed again (nil: now); records nothing.
    func pending(uid: uid_t) -> Int64? {
        let now = ReaderClaims.now(), minute: UInt64 = 60_000_000_000
        return lock.withLock { () -> Int64? in
            let mine = (claims[uid] ?? []).filter { now - $0 < minute }
            guard mine.count >= limit, let oldest = mine.first else { return nil }
            return Int64((oldest + minute - now + 999_999_999) / 1_000_000_000)
        }
    }

    /// Records a claim for `uid` and answers nil, or, past the limit, records nothing and answers
    /// the seconds until the next claim is allowed.
    func take(uid: uid_t) -> Int64? {
        let now = ReaderClaims.now(), minute: UInt64 = 60_000_000_000
        return lock.withLock { () -> Int64? in
            for (u, times) in claims where times.allSatisfy({ now - $0 >= minute }) { claims[u] = nil }
            var mine = (claims[uid] ?? []).filter { now - $0 < minute }
            if mine.count >= limit, let oldest = mine.first {
                claims[uid] = mine
                return Int64((oldest + minute - now + 999_999_999) / 1_000_000_000)
            }
            mine.append(now)
            claims[uid] = mine
            return nil
        }
    }
}

/// The fingerprint checks waiting for a finger, by store: a call that leaves that store unlocked
/// (the passcode, in another connection of the user's) ends them, so the reader is released at
/// once, as the embedded store's host releases it (Stores.withStore asks after each call).
final class FingerWaits: @unchecked Sendable {
    static let shared = FingerWaits()

    /// One waiting check: the flag the wait in passcode_fprint.c reads between its slices.
    final class Wait: @unchecked Sendable {
        let key: String
        let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        init(key: String) {
            self.key = key
            flag.initialize(to: 0)
        }
        deinit { flag.deallocate() }
    }

    private let lock = Mutex()
    private var waits: [String: [Wait]] = [:]

    static func key(_ uid: uid_t, _ app: AppID) -> String { "\(uid)/\(app)" }

    /// A check starting; `watched` (the app locked when it started): an unlock ends it.
    func add(uid: uid_t, app: AppID, watched: Bool) -> Wait {
        let w = Wait(key: FingerWaits.key(uid, app))
        if watched { lock.withLock { waits[w.key, default: []].append(w) } }
        return w
    }

    func remove(_ w: Wait) {
        lock.withLock {
            waits[w.key]?.removeAll { $0 === w }
            if waits[w.key]?.isEmpty == true { waits[w.key] = nil }
        }
    }

    /// Whether a check waits on this store (read without a store call while none does).
    func waiting(_ key: String) -> Bool { lock.withLock { waits[key] != nil } }

    /// Ends every check waiting on this store.
    func cancel(_ key: String) {
        lock.withLock { for w in waits[key] ?? [] { passcode_fprint_cancel(w.flag) } }
    }
}
