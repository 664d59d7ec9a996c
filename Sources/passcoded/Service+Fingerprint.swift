// passcoded checks a finger itself, through fprintd (passcode_fprint.c): the host only asks. The
// wait runs on a worker, on a bus connection of its own, so the bus thread keeps answering, and
// with the worker's and the uid's turns given up, so the uid's other calls run meanwhile. The
// rules stay the core's: a match is the core's biometric unlock (per boot, 48 hours, 5 failed
// matches, the key only if held since a passcode unlock), a no-match its failed match. Whether a
// reader with an enrolled finger exists is fprintd's answer, written to the store as the
// availability the policy reads. Timeout, a busy reader, no reader or no finger count nothing.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    /// passcoded.conf's fprint_timeout (seconds), set once at start.
    nonisolated(unsafe) static var fprintTimeoutSeconds = 30

    func handleFingerprintUnlock(_ call: BusCall, appID app: String) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            _ = try Service.fingerprintUnlock(stores, uid: caller, app: app, needKey: false)
            return []
        }
    }

    func handleFingerprintUnlockKey(_ call: BusCall, appID app: String) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            guard let key = try Service.fingerprintUnlock(stores, uid: caller, app: app, needKey: true) else {
                throw PasscodeError.keyNotReleased
            }
            return [.key(key)]
        }
    }

    /// A failure of the reader as a status of its own kind, with fprintd's reason.
    /// The NUL-terminated message passcode_fprint_* wrote into `buffer`.
    static func message(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

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

    static func fingerprintUnlock(_ stores: StoreRoot, uid: uid_t, app: String, needKey: Bool) throws -> SecretBytes? {
        var buffer = [CChar](repeating: 0, count: 512)
        // fprintd first: a reader with a finger of this user's, written as the availability the
        // core's policy reads; then the policy, before a finger is asked for.
        let probe = passcode_fprint_probe(uid, &buffer, buffer.count)
        let available = probe == Int32(PASSCODE_FPRINT_OK)
        try stores.withStore(uid: uid, appID: app) { s in
            try s.setBiometricAvailability(available, kind: available ? .fingerprint : try s.biometricKind())
            if available {
                let refusal = try s.biometricRefusal()
                if refusal != .none { throw PasscodeError.passcodeRequired(refusal) }
            }
        }
        guard available else { throw fingerprintFailure(probe, message(buffer)) }
        let timeout = UInt64(fprintTimeoutSeconds) * 1_000_000
        // The wait holds a thread, not a turn (as a host's hook does): the uid's other
        // connections, and other uids, run meanwhile (Scheduler.whileWaiting).
        guard let outcome = Scheduler.shared?.whileWaiting({ passcode_fprint_verify(uid, timeout, &buffer, buffer.count) }) else {
            // passcoded's own limit, not the reader's: BUSY, as a busy store answers.
            let (name, text) = BusError.reply(status: BusStatus.errBusy,
                                              message: "too many checks wait on readers or hooks at once; try again; nothing was counted")
            throw CallError(name: name, message: text)
        }
        switch outcome {
        case Int32(PASSCODE_FPRINT_MATCH):
            return try stores.withStore(uid: uid, appID: app) { (s) throws -> SecretBytes? in
                if needKey { return try s.biometricUnlockKey() }
                try s.biometricUnlock()
                return nil
            }
        case Int32(PASSCODE_FPRINT_NO_MATCH):
            let failures = try stores.withStore(uid: uid, appID: app) { try $0.biometricFailed() }
            let (name, text) = BusError.reply(status: BusStatus.errPasscodeRequired,
                                              message: "the finger did not match (\(failures) failed since the last unlock)")
            throw CallError(name: name, message: text)
        default:
            throw fingerprintFailure(outcome, message(buffer))
        }
    }
}
