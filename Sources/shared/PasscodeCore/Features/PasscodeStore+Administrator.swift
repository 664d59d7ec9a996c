// What the administrator of a machine does to a user's store (passcodectl(8), through passcoded's
// User* methods): a first passcode of the length typed, the passcode removed without it, the
// failures cleared; and "forgot" on a store that only stands beside a password (a login store),
// which requires the administrator's reset.
// Who may call these, and which stores are login stores, is passcoded's to check; the rules are here.

extension PasscodeStore {
    /// Sets the first passcode with its own length (4 to 12 digits, `checkAllowed` says): the
    /// length is chosen for this caller first, then the passcode set as `setPasscode` sets it.
    public func enrol(_ code: SecretBytes) throws(PasscodeError) {
        guard try !isPasscodeSet() else { throw PasscodeError.alreadySet }
        try setPasscodeLength(code.count)
        _ = try setPasscode(code)
    }

    /// Removes the passcode without asking for it: the lock goes off and every counter is cleared,
    /// as `removePasscode` does after its check. The log says it was removed.
    public func removeByAdministrator() throws(PasscodeError) {
        guard try isPasscodeSet() else { throw PasscodeError.noPasscode }
        try callLifecycleHook(.removed)
        let now = try now()
        let pin = try? currentSealed()
        try write { () throws(PasscodeError) in
            try removePasscodeLocked()
            _ = try logLocked(.passcodeRemoved, now: now)
        }
        retirePin(pin)
        forgetWrongGuesses()
        flushLogAfterChange()
    }

    /// Clears the failures, the lockout and a required reset (`faillock --reset`'s part), keeping
    /// the passcode: the next attempt is the first of a new count. Logged as a completed reset.
    public func clearFailuresByAdministrator() throws(PasscodeError) {
        guard try isPasscodeSet() else { throw PasscodeError.noPasscode }
        let now = try now()
        try write { () throws(PasscodeError) in
            try update(AttemptState.self) { $0.clearAttempts() }
            _ = try logLocked(.resetCompleted, now: now)
        }
        forgetWrongGuesses()
    }

    /// "Forgot passcode" on a store that stands beside another way in (a Linux login's password),
    /// asked without the passcode: the passcode stays and a reset is required, as after the last
    /// failure the schedule allows, so no one without the passcode turns "has a passcode" into
    /// "has none". Only the administrator ends it (`clearFailuresByAdministrator`,
    /// `removeByAdministrator`); until then every attempt answers `resetRequired`. One
    /// transaction; the log says the passcode was forgotten; no logout.
    /// As `forgotPasscode`, a passcode set or changed while the hook ran stays (`state`).
    public func requireReset() throws(PasscodeError) {
        let asked = try passcodeSeen()
        guard asked != nil else { throw PasscodeError.noPasscode }
        try callLifecycleHook(.forgot)
        let now = try now()
        try write { () throws(PasscodeError) in
            try checkPasscodeUnchangedLocked(since: asked)  // the passcode forgotten, not one set since
            try update(AttemptState.self) { $0.resetRequired = true }
            _ = try logLocked(.forgotPasscode, now: now)
        }
    }
}
