// When the app locks: at launch, after time in the background, or on request. Pure rules.

/// What the host reports about the app (`passcode_app_event`).
@c(passcode_app_event)
public enum AppEvent: Int32, Sendable {
    /// The app process started.
    case launched = 0
    /// The app went to the background.
    case background = 1
    /// The app came back to the foreground.
    case foreground = 2
    /// The user or the host asked to lock now.
    case lockNow = 3
}

/// Why the app is locked (`passcode_lock_state`'s reason).
@c(passcode_lock_reason)
public enum LockReason: Int32, Sendable, CaseIterable {
    /// Not locked.
    case none = 0
    /// Locked at launch (the default whenever the lock is on).
    case launch = 1
    /// Locked on returning after at least the auto-lock timeout in the background.
    case background = 2
    /// Locked because the host or the user asked.
    case requested = 3
    /// Locked because the device restarted while the app was in the background.
    case restart = 4
    /// Logged out ("forgot passcode", the forced-logout action, a deleted account): the passcode
    /// is gone and the user must sign in again; cleared when a new passcode is set.
    case loggedOut = 5
}

/// A moment on the boot-time clock, tied to the boot it was read in, with the wall clock's
/// reading at the same moment when it was recorded (nil in a store written before it was).
public struct BootInstant: Equatable, Sendable {
    public var bootID: UInt64
    public var ms: Int64
    public var wallMs: Int64?
    public init(bootID: UInt64, ms: Int64, wallMs: Int64? = nil) { self.bootID = bootID; self.ms = ms; self.wallMs = wallMs }

    /// The time since this moment by both clocks, the longer one, as lockouts and the reset
    /// limits count: moving one clock back (a time namespace's boot clock, a wall clock set
    /// back) does not make it shorter. nil when it cannot be measured: another boot, or the boot
    /// clock before this moment. Every value is within +-(2^61 - 1), so nothing overflows.
    public func elapsedMs(now: ClockReading) -> Int64? {
        guard bootID == now.bootID, now.bootMs >= ms else { return nil }
        return max(now.bootMs - ms, wallMs.map { now.wallMs - $0 } ?? 0)
    }
}

public enum AutoLockPolicy {
    /// With the "immediately" timeout, quick app switches shorter than this do not lock.
    public static let gracePeriodMs: Int64 = 5000

    /// Whether returning to the foreground now locks, after going to the background at
    /// `since`. A reboot in between, or a clock reading before `since`, locks: time that
    /// cannot be measured is never taken as short. The time is the longer of the boot clock's
    /// and the wall clock's (`BootInstant.elapsedMs`).
    public static func lockOnReturn(timeoutSeconds: Int64, since: BootInstant, now: ClockReading) -> LockReason {
        if since.bootID != now.bootID { return .restart }
        guard let elapsed = since.elapsedMs(now: now) else { return .background }
        let threshold = timeoutSeconds == 0 ? gracePeriodMs : timeoutSeconds * 1000
        return elapsed >= threshold ? .background : .none
    }
}
