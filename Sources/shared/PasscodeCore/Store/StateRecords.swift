// The store's mutable state (the `state` table's rows) as small typed records, each loaded and
// saved in one place (`Storage.load`, `Storage.save`), with the transitions named. Every value
// read from the file is range-checked: an out-of-range or wrongly typed value is `corrupt`,
// naming the row. A row that is not stored takes the value the record's `init()` gives its field
// (the one place each default is stated). The one-off rows are `StateKey`s (Storage.swift).

/// One row of the `state` table bound to a field of a record. Each field is named by a getter
/// and a setter (no key paths: Embedded Swift has none).
struct StateField<Record>: Sendable {
    let key: String
    let range: ClosedRange<Int64>
    let get: @Sendable (Record) -> Int64
    let set: @Sendable (inout Record, Int64) -> Void

    static func int(_ key: String, _ get: @escaping @Sendable (Record) -> Int64, _ set: @escaping @Sendable (inout Record, Int64) -> Void,
                    range: ClosedRange<Int64>) -> StateField {
        StateField(key: key, range: range, get: get, set: set)
    }

    static func flag(_ key: String, _ get: @escaping @Sendable (Record) -> Bool, _ set: @escaping @Sendable (inout Record, Bool) -> Void) -> StateField {
        StateField(key: key, range: 0...1, get: { get($0) ? 1 : 0 }, set: { set(&$0, $1 != 0) })
    }

    /// A boot id: 64 bits stored as their signed bit pattern.
    static func bootID(_ key: String, _ get: @escaping @Sendable (Record) -> UInt64,
                       _ set: @escaping @Sendable (inout Record, UInt64) -> Void) -> StateField {
        StateField(key: key, range: Int64.min...Int64.max,
                   get: { Int64(bitPattern: get($0)) }, set: { set(&$0, UInt64(bitPattern: $1)) })
    }

    static func enumeration<E: RawRepresentable & CaseIterable & SendableMetatype>(_ key: String, _ get: @escaping @Sendable (Record) -> E,
                                                                                   _ set: @escaping @Sendable (inout Record, E) -> Void)
        -> StateField where E.RawValue == Int32 {
        let values = E.allCases.map { Int64($0.rawValue) }
        return StateField(key: key, range: values.min()!...values.max()!,
                          get: { Int64(get($0).rawValue) },
                          set: { set(&$0, E(checked: Int32($1)) ?? E.allCases.first!) })
    }
}

/// A wall-clock field not recorded yet (a store from before it was): below every reading accepted.
let unknownWallMs: Int64 = -maxClockMs - 1

extension StateKey {
    /// The name of every row the `state` table may hold: each record's fields, then the one-off rows.
    static let rowNames: [String] = AttemptState.fields.map { $0.key } + LockState.fields.map { $0.key }
        + BiometricState.fields.map { $0.key } + KeyState.fields.map { $0.key } + TPMState.fields.map { $0.key }
        + StateKey.allCases.map { $0.rawValue }
}

/// A record made of `state` rows.
protocol StateRecord: Equatable {
    /// Every field at its default: the value of a row that is not stored.
    init()
    static var fields: [StateField<Self>] { get }
}

/// Milliseconds on the boot-time clock are at most this (about 290 million years): any larger
/// stored value is damage, and sums of two stay within Int64.
let maxClockMs: Int64 = Int64.max / 4

// MARK: - Failed attempts and lockout

/// The attempt counter and the lockout. Attempts are counted write-ahead: `attemptSeq` grows
/// before a passcode is checked, `clearedSeq` catches up on success; failures = difference.
struct AttemptState: StateRecord {
    var attemptSeq: Int64 = 0
    var clearedSeq: Int64 = 0
    var lockoutBootID: UInt64 = 0
    var lockoutStartMs: Int64 = 0
    /// The wall clock at the start: a lockout ends only when this clock agrees (unless it went back).
    var lockoutStartWallMs: Int64 = 0
    var lockoutDurationMs: Int64 = 0
    var resetRequired = false

    static let fields: [StateField<AttemptState>] = [
        .int("attempt_seq", { $0.attemptSeq }, { $0.attemptSeq = $1 }, range: 0...Int64.max / 2),
        .int("cleared_seq", { $0.clearedSeq }, { $0.clearedSeq = $1 }, range: 0...Int64.max / 2),
        .bootID("lockout_boot_id", { $0.lockoutBootID }, { $0.lockoutBootID = $1 }),
        .int("lockout_start_ms", { $0.lockoutStartMs }, { $0.lockoutStartMs = $1 }, range: 0...maxClockMs),
        .int("lockout_start_wall_ms", { $0.lockoutStartWallMs }, { $0.lockoutStartWallMs = $1 }, range: -maxClockMs...maxClockMs),
        .int("lockout_duration_ms", { $0.lockoutDurationMs }, { $0.lockoutDurationMs = $1 }, range: 0...LockoutSchedule.longestPossibleDelaySeconds * 1000),
        .flag("reset_required", { $0.resetRequired }, { $0.resetRequired = $1 }),
    ]

    var failures: Int64 { max(0, attemptSeq - clearedSeq) }

    /// Milliseconds left in the lockout, by two clocks: it ends only when both the boot clock
    /// and the wall clock say its delay has passed, so moving either one alone (a time namespace
    /// moves the boot clock without privilege) never shortens it. If the wall clock went back
    /// before the start, the boot clock alone decides, so a lockout is never endless. A reboot
    /// (new boot id) or a boot clock before the start starts a pending lockout again in full;
    /// `restart` records such a new start, and clears a lockout that is over.
    mutating func lockoutRemaining(now: ClockReading, restart: Bool) -> Int64 {
        guard lockoutDurationMs > 0 else { return 0 }
        if lockoutBootID != now.bootID || now.bootMs < lockoutStartMs {
            if restart { startLockout(ms: lockoutDurationMs, now: now) }
            return lockoutDurationMs
        }
        let byBoot = lockoutStartMs + lockoutDurationMs - now.bootMs
        let byWall = now.wallMs < lockoutStartWallMs ? 0 : min(lockoutDurationMs, lockoutStartWallMs + lockoutDurationMs - now.wallMs)
        let remaining = max(byBoot, byWall)
        if remaining <= 0 {
            if restart { lockoutDurationMs = 0 }
            return 0
        }
        return remaining
    }

    /// Whether a pending lockout is to start again in full at `now`: recorded before a reboot (a
    /// new boot id) or at a boot clock later than `now`.
    func lockoutRestartDue(now: ClockReading) -> Bool {
        lockoutDurationMs > 0 && (lockoutBootID != now.bootID || now.bootMs < lockoutStartMs)
    }

    /// Reads the lockout without changing anything.
    func lockoutRemaining(now: ClockReading) -> Int64 {
        var copy = self
        return copy.lockoutRemaining(now: now, restart: false)
    }

    mutating func startLockout(ms: Int64, now: ClockReading) {
        lockoutBootID = now.bootID
        lockoutStartMs = now.bootMs
        lockoutStartWallMs = min(max(now.wallMs, -maxClockMs), maxClockMs)
        lockoutDurationMs = ms
    }

    /// Counts an attempt before its answer is known; returns its sequence number.
    mutating func beginAttempt() -> Int64 {
        attemptSeq += 1
        return attemptSeq
    }

    /// A success clears the attempts up to `seq`; with none left over, the lockout and the reset
    /// requirement go too.
    mutating func succeeded(seq: Int64) {
        clearedSeq = max(clearedSeq, seq)
        if attemptSeq - clearedSeq <= 0 {
            lockoutDurationMs = 0
            resetRequired = false
        }
    }

    /// Forgets every failure (a new passcode, a reset, removal).
    mutating func clearAttempts() {
        clearedSeq = attemptSeq
        lockoutDurationMs = 0
        resetRequired = false
    }
}

// MARK: - Lock state

/// Whether the app is locked and why, and the lifecycle facts that decide it.
struct LockState: StateRecord {
    var locked = false
    var reason: LockReason = .none
    var backgroundBootID: UInt64 = 0
    /// When the app went to the background (boot clock), -1 when it is not there.
    var backgroundMs: Int64 = -1
    /// The wall clock at the same moment (`unknownWallMs` in a store written before it was).
    var backgroundWallMs: Int64 = unknownWallMs
    /// The process that reported it (`ProcessIdentity`), 0 when unknown.
    var backgroundPid: Int64 = 0
    var backgroundProcessStart: Int64 = 0
    var launchNeedsPasscode = false

    static let fields: [StateField<LockState>] = [
        .flag("locked", { $0.locked }, { $0.locked = $1 }),
        .enumeration("lock_reason", { $0.reason }, { $0.reason = $1 }),
        .bootID("background_boot_id", { $0.backgroundBootID }, { $0.backgroundBootID = $1 }),
        .int("background_ms", { $0.backgroundMs }, { $0.backgroundMs = $1 }, range: -1...maxClockMs),
        .int("background_wall_ms", { $0.backgroundWallMs }, { $0.backgroundWallMs = $1 }, range: unknownWallMs...maxClockMs),
        .int("background_pid", { $0.backgroundPid }, { $0.backgroundPid = $1 }, range: 0...Int64(Int32.max)),
        .int("background_process_start", { $0.backgroundProcessStart }, { $0.backgroundProcessStart = $1 }, range: 0...Int64.max),
        .flag("launch_needs_passcode", { $0.launchNeedsPasscode }, { $0.launchNeedsPasscode = $1 }),
    ]

    /// Locks for `why`; an earlier reason stays (locked at launch is still "launch" after a
    /// trip to the background).
    mutating func lock(_ why: LockReason) {
        guard !locked else { return }
        locked = true
        reason = why
    }

    mutating func unlock() {
        locked = false
        reason = .none
    }

    /// The user is logged out: locked with `.loggedOut` until a new passcode is set.
    mutating func logOut() {
        reset()
        locked = true
        reason = .loggedOut
    }

    /// The state of a store with no passcode: nothing locked, nothing pending.
    mutating func reset() {
        unlock()
        backgroundMs = -1
        launchNeedsPasscode = false
    }

    /// The auto-lock rule for time in the background since `since` (nil: not there).
    mutating func autoLock(since: BootInstant?, timeoutSeconds: Int64, now: ClockReading) {
        guard let since else { return }
        let reason = AutoLockPolicy.lockOnReturn(timeoutSeconds: timeoutSeconds, since: since, now: now)
        if reason != .none { lock(reason) }
    }

    var backgroundSince: BootInstant? {
        backgroundMs < 0 ? nil : BootInstant(bootID: backgroundBootID, ms: backgroundMs,
                                             wallMs: backgroundWallMs == unknownWallMs ? nil : backgroundWallMs)
    }

    /// The app went to the background now. A record that is already there stays (the earliest
    /// time counts: a second BACKGROUND, from this process or another, restarts no timer) once
    /// the auto-lock rule has been applied to it; a record from another boot is replaced after
    /// it locked (`.restart`). `process` is the one that reports it.
    mutating func wentToBackground(now: ClockReading, enabled: Bool, timeoutSeconds: Int64, process: ReportingProcess) {
        if let since = backgroundSince {
            if enabled { autoLock(since: since, timeoutSeconds: timeoutSeconds, now: now) }
            if since.bootID == now.bootID { return }
        }
        backgroundBootID = now.bootID
        backgroundMs = now.bootMs
        backgroundWallMs = now.wallMs
        (backgroundPid, backgroundProcessStart) = (process.pid, process.start)
    }

    /// The app is in the foreground (FOREGROUND, or LAUNCHED with `launch`): the auto-lock rule
    /// applies to the recorded time in the background, whichever process reports it. The record
    /// goes when the process that made it returns (its own FOREGROUND), at a launch once that
    /// process is gone (killed, quit), or after a reboot. A FOREGROUND from another process
    /// keeps it, so a later return or launch still counts the whole time. `process` is the one
    /// that reports it.
    mutating func cameToForeground(now: ClockReading, enabled: Bool, timeoutSeconds: Int64, launch: Bool, process: ReportingProcess) {
        guard let since = backgroundSince else { return }
        if enabled { autoLock(since: since, timeoutSeconds: timeoutSeconds, now: now) }
        let mine = backgroundPid > 0 && ReportingProcess(pid: backgroundPid, start: backgroundProcessStart) == process
        let gone = launch && !ProcessIdentity.isAlive(pid: backgroundPid, start: backgroundProcessStart)
        if mine || gone || since.bootID != now.bootID { backgroundMs = -1 }
    }
}

// MARK: - Biometrics

/// What the host reported about biometrics, and the facts biometric policy counts.
struct BiometricState: StateRecord {
    var available = false
    var kind: BiometricKind = .none
    var failures: Int64 = 0
    var lastPasscodeBootID: UInt64 = 0
    /// When the passcode was last entered (boot clock), -1 for never.
    var lastPasscodeMs: Int64 = -1
    /// The wall clock at the same moment (`unknownWallMs` in a store written before it was).
    var lastPasscodeWallMs: Int64 = unknownWallMs

    static let fields: [StateField<BiometricState>] = [
        .flag("biometric_available", { $0.available }, { $0.available = $1 }),
        .enumeration("biometric_kind", { $0.kind }, { $0.kind = $1 }),
        .int("biometric_failures", { $0.failures }, { $0.failures = $1 }, range: 0...Int64.max / 2),
        .bootID("last_passcode_boot_id", { $0.lastPasscodeBootID }, { $0.lastPasscodeBootID = $1 }),
        .int("last_passcode_ms", { $0.lastPasscodeMs }, { $0.lastPasscodeMs = $1 }, range: -1...maxClockMs),
        .int("last_passcode_wall_ms", { $0.lastPasscodeWallMs }, { $0.lastPasscodeWallMs = $1 }, range: unknownWallMs...maxClockMs),
    ]

    var lastPasscodeEntry: BootInstant? {
        lastPasscodeMs < 0 ? nil : BootInstant(bootID: lastPasscodeBootID, ms: lastPasscodeMs,
                                               wallMs: lastPasscodeWallMs == unknownWallMs ? nil : lastPasscodeWallMs)
    }

    /// The passcode was entered now: biometric failures start again from 0.
    mutating func passcodeEntered(now: ClockReading) {
        lastPasscodeBootID = now.bootID
        lastPasscodeMs = now.bootMs
        lastPasscodeWallMs = now.wallMs
        failures = 0
    }
}

// MARK: - The data key

/// Whether the host ever used the data key (took it, sealed with it), so that a reset that
/// replaces it must say so.
struct KeyState: StateRecord {
    var handedOut = false
    static let fields: [StateField<KeyState>] = [.flag("data_key_handed_out", { $0.handedOut }, { $0.handedOut = $1 })]
}

// MARK: - The TPM binding

/// The binding as the `state` table keeps it.
struct TPMState: StateRecord {
    var bound = false
    /// The NV index of the attempt counter (0: none yet).
    var nvIndex: Int64 = 0
    /// The value the counter must have.
    var nvCount: Int64 = 0
    /// Guesses on the PIN_FAIL index `outsidePin` that did not come through this library (seen
    /// as the index's pinCount above the library's own consecutive failures): charged to the
    /// passcode for as long as it has that index, and written back into pinCount after each
    /// success (which zeroes it), so that all guesses together stay within the limit.
    var outsideGuesses: Int64 = 0
    var outsidePin: Int64 = 0

    static let fields: [StateField<TPMState>] = [
        .flag("tpm_bound", { $0.bound }, { $0.bound = $1 }),
        .int("tpm_nv_index", { $0.nvIndex }, { $0.nvIndex = $1 }, range: 0...Int64(TPM2.nvFirst + TPM2.nvSpan - 1)),
        .int("tpm_nv_count", { $0.nvCount }, { $0.nvCount = $1 }, range: 0...Int64.max),
        .int("tpm_outside_guesses", { $0.outsideGuesses }, { $0.outsideGuesses = $1 }, range: 0...Int64(UInt32.max)),
        .int("tpm_outside_pin", { $0.outsidePin }, { $0.outsidePin = $1 }, range: 0...Int64(UInt32.max)),
    ]

    /// The counter's index, checked: the file is input.
    func counterIndex() throws(PasscodeError) -> UInt32 {
        guard nvIndex >= Int64(TPM2.nvFirst) else { throw PasscodeError.corrupt("the store's TPM counter index is damaged") }
        return UInt32(nvIndex)
    }
}
