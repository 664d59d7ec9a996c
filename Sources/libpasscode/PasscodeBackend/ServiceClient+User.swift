// Another user's store through passcoded (its User* methods): the handle's app id, a uid.
import PasscodeBus
import PasscodeCore

extension ServiceClient: UserBackend {
    package func userState(uid: UInt32) throws(PasscodeError) -> UserState {
        let s = try callUserGetState(uid: uid)
        return UserState(isSet: s.isSet, failures: s.failedAttempts, lockoutSeconds: s.lockoutRemaining,
                         resetRequired: s.resetRequired, length: s.length)
    }

    package func userLockout(uid: UInt32) throws(PasscodeError) -> UserLockout {
        let s = try callUserGetLockout(uid: uid)
        // Values this library does not know (a newer passcoded) are refused, not passed on.
        guard let state = LoginState(checked: s.state), let refusal = BiometricRefusal(checked: s.fingerprintRefusal) else {
            throw PasscodeError.serviceUnavailable("passcoded answered a login state this library does not know (\(s.state), \(s.fingerprintRefusal))")
        }
        return UserLockout(state: state, lockoutSeconds: s.lockoutRemaining, failures: s.failedAttempts, attemptsLeft: s.attemptsLeft,
                           nextDelaySeconds: s.nextDelay, fingerprintRefusal: refusal)
    }

    package func userVerify(uid: UInt32, _ code: SecretBytes) throws(PasscodeError) {
        try withUserWait(uid: uid) { () throws(PasscodeError) in try callUserVerify(uid: uid, passcode: code) }
    }

    package func userSet(uid: UInt32, _ code: SecretBytes) throws(PasscodeError) {
        try callUserSetPasscode(uid: uid, passcode: code)
    }

    package func userChange(uid: UInt32, current: SecretBytes, new: SecretBytes) throws(PasscodeError) {
        try withUserWait(uid: uid) { () throws(PasscodeError) in try callUserChangePasscode(uid: uid, current: current, newPasscode: new) }
    }

    package func userRemove(uid: UInt32, current: SecretBytes?) throws(PasscodeError) {
        try withUserWait(uid: uid) { () throws(PasscodeError) in
            try callUserRemovePasscode(uid: uid, current: current ?? SecretBytes(count: 0))
        }
    }

    package func userReset(uid: UInt32) throws(PasscodeError) {
        try callUserReset(uid: uid)
    }

    package func userEvents(uid: UInt32) throws(PasscodeError) -> [SecurityEventRecord] {
        try callUserGetEventLog(uid: uid).map { SecurityEventRecord(kind: $0.0, wallMs: $0.1, detail: $0.2) }
    }

    package func userFingerprintReady(uid: UInt32) throws(PasscodeError) {
        let (ready, reason) = try callUserFingerprintReady(uid: uid)
        guard ready else { throw .service(status: BusStatus.errPasscodeRequired, message: "no finger is read now: \(reason)", waitSeconds: 0) }
    }

    package func userFingerprintUnlock(uid: UInt32) throws(PasscodeError) {
        try canceller.run { () throws(PasscodeError) in try callUserFingerprintUnlock(uid: uid) }
    }

    // bus: local (the cancel closes this handle's connection; passcoded sees it leave the bus)
    package func userFingerprintCancel() {
        canceller.cancel()
    }

    /// A lockout answered to a call that names a uid carries that user's wait for
    /// passcode_errwait (the caller's own store's, which call() reads for its own calls, is
    /// another store: pam_passcode then said "Passcode locked." without the minutes).
    private func withUserWait(uid: UInt32, _ body: () throws(PasscodeError) -> Void) throws(PasscodeError) {
        do throws(PasscodeError) {
            try body()
        } catch .service(let status, let message, _) where status == BusStatus.errLockedOut {
            throw .service(status: status, message: message, waitSeconds: (try? callUserGetState(uid: uid).lockoutRemaining) ?? 0)
        }
    }
}
