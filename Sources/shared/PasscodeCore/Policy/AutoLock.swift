// When the app locks: at launch, after time in the background, or on request. Pure rules.

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
