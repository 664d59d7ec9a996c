// What the library tells the host through its callbacks: notices and logout reasons.

/// What the host is told through its notification callback (`passcode_notice`).
@c(passcode_notice)
public enum Notice: Int32, Sendable {
    /// The passcode was reset with an emailed code: tell the user (security guidance asks for it).
    case passcodeReset = 1
}

/// Why the library asks the host to log the user out (`passcode_set_logout_callback`).
@c(passcode_logout_reason)
public enum LogoutReason: Int32, Sendable {
    /// The maximum number of failed attempts, with the "forced logout" action.
    case maxFailures = 1
    /// The user chose "forgot passcode" on the lock screen.
    case forgotPasscode = 2
}
