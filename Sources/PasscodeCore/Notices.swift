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

/// A change of the passcode's life the host may mirror on its backend
/// (`passcode_set_lifecycle_callback`). The callback hears which, never digits or hashes.
@c(passcode_lifecycle_event)
public enum LifecycleEvent: Int32, Sendable, CaseIterable {
    /// The first passcode was set (`passcode_set`, the create flow).
    case set = 1
    /// The passcode was changed (`passcode_change`, the change flow).
    case changed = 2
    /// The passcode was replaced with an emailed reset code (`passcode_reset_complete`).
    case reset = 3
    /// The lock was turned off, the passcode kept (`passcode_disable`).
    case disabled = 4
    /// The lock was turned on again (`passcode_enable`).
    case enabled = 5
    /// The passcode was removed (`passcode_remove`).
    case removed = 6
    /// "Forgot passcode": removed, the user logged out (`passcode_forgot`).
    case forgot = 7
}
