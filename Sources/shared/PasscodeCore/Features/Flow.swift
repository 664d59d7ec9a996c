// Entry flows: a front end forwards key presses and draws what the flow reports (prompt,
// filled dots, error line, shake counter). The screens of the design give the steps.

/// What an entry flow asks of its store: the embedded `PasscodeStore`, or in service mode the
/// client of passcoded (which checks each passcode the flow submits). The flow's rules are
/// written once, here, for both.
public protocol FlowStore: AnyObject {
    func isPasscodeSet() throws(PasscodeError) -> Bool
    func passcodeLength() throws(PasscodeError) -> Int
    func lockoutRemainingSeconds() throws(PasscodeError) -> Int64
    func isResetRequired() throws(PasscodeError) -> Bool
    func isResetCodePending() throws(PasscodeError) -> Bool
    func resetCodeLength() throws(PasscodeError) -> Int
    /// Whether a reset flow may start (a passcode to replace).
    func flowResetAllowed() throws(PasscodeError) -> Bool
    /// Why `code` is too weak to become the passcode, nil when it is not.
    func flowWeakness(_ code: SecretBytes) -> String?
    /// `verify`: counted, and on success the data key (released on the handle).
    func flowVerify(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes
    /// Turns the lock off after checking `current`; the data key.
    func disable(current: SecretBytes) throws(PasscodeError) -> SecretBytes
    /// Sets the first passcode; the new data key.
    func setPasscode(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes
    /// Whether `flowReplacePasscode` checks the current passcode again (service mode: the
    /// service never takes the key from the host), so that the flow must keep it until then.
    var flowRechecksCurrent: Bool { get }
    /// Replaces the passcode the flow checked (`current`, whose check gave `key`; empty when
    /// `flowRechecksCurrent` is false) by `new`; the data key.
    func flowReplacePasscode(current: SecretBytes, key: SecretBytes, new: SecretBytes) throws(PasscodeError) -> SecretBytes
    /// Checks a reset code (a try taken first); the seconds it stays valid.
    func checkResetCode(_ code: SecretBytes) throws(PasscodeError) -> Int64
    /// Completes a reset with a checked code; the data key and whether it had to be replaced.
    func flowCompleteReset(code: SecretBytes, newPasscode: SecretBytes) throws(PasscodeError) -> (key: SecretBytes, replaced: Bool)
    /// The host took the flow's key: recorded, as for `passcode_unlock_key`.
    func flowKeyTaken() throws(PasscodeError)
    /// The error a flow shows for `error` (service mode: the embedded store's error that a
    /// service's answer stands for, `PasscodeError.service`).
    func flowShows(_ error: PasscodeError) -> PasscodeError
}

/// The embedded store: the flow calls the store's own functions.
extension PasscodeStore: FlowStore {
    public func flowResetAllowed() throws(PasscodeError) -> Bool { try isResetAllowed() }
    public func flowWeakness(_ code: SecretBytes) -> String? { weakness(code) }
    public func flowVerify(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes { try verify(code) }
    /// The key the check gave is enough here: the flow keeps no copy of the current passcode.
    public var flowRechecksCurrent: Bool { false }
    public func flowReplacePasscode(current: SecretBytes, key: SecretBytes, new: SecretBytes) throws(PasscodeError) -> SecretBytes {
        try replaceVerifiedPasscode(new, key: key)
        return key
    }
    public func flowCompleteReset(code: SecretBytes, newPasscode: SecretBytes) throws(PasscodeError) -> (key: SecretBytes, replaced: Bool) {
        try completeReset(code: code, newPasscode: newPasscode)
    }
    public func flowKeyTaken() throws(PasscodeError) { try recordKeyHandedOut() }
    public func flowShows(_ error: PasscodeError) -> PasscodeError { error }

    /// Why `code` is too weak for a store that does not allow weak passcodes (service mode's
    /// stores never do: the host cannot choose allow_weak), nil when it is not.
    public static func strictWeakness(_ code: SecretBytes) -> String? {
        var digits = code.digitValues()
        defer { Sodium.wipe(&digits) }
        return PasscodePolicy.weakness(digits)
    }
}

/// One flow; not thread-safe: use it from one thread at a time.
public final class PasscodeFlow: @unchecked Sendable {
    public let kind: FlowKind
    let store: any FlowStore
    public private(set) var step: FlowStep
    public private(set) var result: FlowResult = .inProgress
    /// The error line to show (NONE for none), with its number. Never contains digits the user typed.
    public private(set) var error = ShownMessage.none
    /// The error line in English, "" for none (the library gives it in the host's language).
    public var errorText: String { error.english }
    /// The status of the last submitted entry (.ok as nil).
    public private(set) var lastError: PasscodeError?
    /// Grows by one at every error; a front end shakes the dots when it changes.
    public private(set) var shakes = 0
    /// The number of digits the current step takes.
    public private(set) var length: Int
    public private(set) var filled = 0

    private let entry = SecretBytes(count: PasscodePolicy.maxLength)
    private var firstEntry: SecretBytes?
    /// A change flow's current passcode, checked at its first step, kept only when the store
    /// checks it again when the new one replaces it (`flowRechecksCurrent`: service mode).
    private var currentEntry: SecretBytes?
    private var resetCode: SecretBytes?
    private var stepBeforeLockout: FlowStep
    /// The data key, from the flow's passcode step until the host takes it (once) or the flow
    /// ends without success or is freed; this copy is the flow's own.
    private var key: SecretBytes?

    public init(store: any FlowStore, kind: FlowKind) throws(PasscodeError) {
        self.store = store
        self.kind = kind
        switch kind {
        case .unlock, .disable: step = .enterPasscode
        case .create: step = .enterNew
        case .change: step = .enterCurrent
        case .reset: step = .enterCode
        }
        stepBeforeLockout = step
        length = 0
        if kind == .create, try store.isPasscodeSet() {
            throw PasscodeError.alreadySet
        }
        if kind != .create && kind != .reset, try !store.isPasscodeSet() {
            throw PasscodeError.noPasscode
        }
        if kind == .reset, try !store.flowResetAllowed() {
            throw PasscodeError.noPasscode  // a reset replaces a passcode
        }
        length = try lengthFor(step)
        // A reset flow starts only with a code to enter: not at a keypad that fails after 8 digits.
        if kind == .reset, try !store.isResetCodePending() {
            throw PasscodeError.noResetCode
        }
        if kind != .create && kind != .reset { try refresh() }
    }

    /// The prompt for the current step.
    public var promptMessage: Message {
        switch (kind, step) {
        case (.unlock, .enterPasscode): return .enterPasscode
        case (.disable, .enterPasscode): return .enterPasscodeToDisable
        case (.change, .enterCurrent): return .enterCurrentPasscode
        case (.change, .enterNew): return .enterNewPasscode
        case (.change, .confirmNew): return .confirmNewPasscode
        case (.reset, .enterCode): return .enterResetCode
        case (.reset, .enterNew): return .enterANewPasscode
        case (_, .enterNew): return .enterAPasscode
        case (_, .confirmNew): return .confirmPasscode
        case (_, .lockedOut): return .passcodeLocked
        case (_, .finished):
            switch result {
            case .success: return .flowDone
            case .cancelled: return .flowCancelled
            case .needsReset: return .passcodeResetRequired
            case .loggedOut: return .flowLoggedOut
            default: return .flowStopped
            }
        default: return .enterPasscode
        }
    }

    /// The prompt in English (the library gives it in the host's language).
    public var prompt: String { promptMessage.englishText() }

    /// Seconds left in a lockout, 0 when none.
    public func lockoutSeconds() throws(PasscodeError) -> Int64 {
        step == .lockedOut ? try store.lockoutRemainingSeconds() : 0
    }

    // MARK: - Keys

    /// Adds a digit (0-9); the entry submits itself at full length. Throws `state` when the
    /// flow takes no input now (finished, locked out).
    public func append(digit: Int) throws(PasscodeError) {
        guard (0...9).contains(digit) else { throw PasscodeError.misuse("a digit must be 0 to 9") }
        guard step != .finished && step != .lockedOut else { throw PasscodeError.state("the flow takes no digits now") }
        guard filled < min(length, entry.count) else { return }
        entry.withMutableBytes { $0[filled] = 0x30 + UInt8(digit) }
        filled += 1
        error = .none
        if filled == length { submit() }
    }

    /// Removes the last digit; nothing when the entry is empty.
    public func deleteLast() {
        guard filled > 0, step != .finished else { return }
        filled -= 1
        entry.withMutableBytes { $0[filled] = 0 }
    }

    /// The data key after a successful unlock, create, change, disable or reset, once: the
    /// flow keeps no copy afterwards. Nil before success, after a failure, or when taken.
    public func takeKey() throws(PasscodeError) -> SecretBytes? {
        guard result == .success, let taken = key else { return nil }
        key = nil
        try store.flowKeyTaken()
        return taken
    }

    /// Ends the flow; nothing that was not already committed changes.
    public func cancel() {
        guard step != .finished else { return }
        clearEntry()
        firstEntry = nil
        currentEntry = nil
        resetCode = nil
        key = nil
        step = .finished
        result = .cancelled
    }

    /// The flow's store was closed (`passcode_close`): the typed digits, the codes and the flow's
    /// copy of the data key are wiped now, whatever step the flow was at.
    public func wipe() {
        clearEntry()
        firstEntry = nil
        currentEntry = nil
        resetCode = nil
        key = nil
        if step != .finished { step = .finished; result = .cancelled }
    }

    /// Re-reads the lockout: a locked-out flow takes digits again when the time is over, and a
    /// flow whose store went into lockout elsewhere shows it.
    public func refresh() throws(PasscodeError) {
        guard step != .finished else { return }
        if try store.isResetRequired(), kind == .unlock || kind == .change || kind == .disable {
            finish(.needsReset, error: ShownMessage(.resetRequired))
            return
        }
        let seconds = try store.lockoutRemainingSeconds()
        let usesPasscode = step == .enterPasscode || step == .enterCurrent || step == .lockedOut
        if seconds > 0 && usesPasscode {
            if step != .lockedOut { stepBeforeLockout = step }
            clearEntry()
            step = .lockedOut
            result = .lockedOut
            error = Message.lockout(seconds: seconds)
        } else if step == .lockedOut {
            step = stepBeforeLockout
            result = .inProgress
            error = .none
        }
    }

    // MARK: - Steps

    private func submit() {
        let value = SecretBytes(count: filled)
        value.withMutableBytes { dst in entry.withBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<filled])) } }
        clearEntry()
        lastError = nil
        do throws(PasscodeError) {
            switch step {
            case .enterPasscode where kind == .unlock:
                key = try store.flowVerify(value)
                finish(.success)
            case .enterPasscode:
                key = try store.disable(current: value)
                finish(.success)
            case .enterCurrent:
                key = try store.flowVerify(value)
                currentEntry = store.flowRechecksCurrent ? value : nil
                firstEntry = nil
                try go(.enterNew)
            case .enterCode:
                _ = try store.checkResetCode(value)
                resetCode = value
                try go(.enterNew)
            case .enterNew:
                if let why = store.flowWeakness(value) {
                    fail(.weakPasscode(why), shown: ShownMessage(PasscodePolicy.message(forReason: why)))
                    return
                }
                firstEntry = value
                try go(.confirmNew)
            case .confirmNew:
                guard let first = firstEntry, first.constantTimeEquals(value) else {
                    firstEntry = nil
                    fail(.state("mismatch"), shown: ShownMessage(.passcodesDontMatch))
                    try go(.enterNew, keepError: true)
                    return
                }
                var replaced = false
                switch kind {
                case .create: key = try store.setPasscode(value)
                case .change:
                    guard let key else { throw PasscodeError.state("the current passcode was not entered") }
                    let current = currentEntry ?? SecretBytes(count: 0)
                    if store.flowRechecksCurrent && current.count == 0 { throw PasscodeError.state("the current passcode was not entered") }
                    self.key = try store.flowReplacePasscode(current: current, key: key, new: value)
                default:
                    guard let code = resetCode else { throw PasscodeError.noResetCode }
                    (key, replaced) = try store.flowCompleteReset(code: code, newPasscode: value)
                }
                finish(.success)
                if replaced {  // done, but the host must hear that its sealed data is gone
                    lastError = .keyReplaced
                    error = ShownMessage(.resetDataNotKept)
                }
            case .lockedOut, .finished:
                return
            }
        } catch {
            handle(store.flowShows(error))
        }
    }

    private func handle(_ e: PasscodeError) {
        switch e {
        case .wrongPasscode, .lockedOut:
            fail(e, shown: e.shown)
            try? refresh()  // this failure may have started a lockout
        case .resetRequired: finish(.needsReset, error: e.shown, status: e)
        case .loggedOut: finish(.loggedOut, error: e.shown, status: e)
        case .noPasscode, .alreadySet: finish(.failed, error: e.shown, status: e)
        case .resetCodeExpired, .noResetCode:
            fail(e, shown: e.shown)
            resetCode = nil
            firstEntry = nil
            step = .enterCode
            length = (try? store.resetCodeLength()) ?? length
        default: fail(e, shown: e.shown)  // one message per case (PasscodeError.shown), said once
        }
    }

    private func fail(_ e: PasscodeError, shown: ShownMessage) {
        lastError = e
        error = shown
        shakes += 1
    }

    private func finish(_ r: FlowResult, error: ShownMessage = .none, status: PasscodeError? = nil) {
        clearEntry()
        firstEntry = nil
        currentEntry = nil
        resetCode = nil
        if r != .success { key = nil }
        step = .finished
        result = r
        self.error = error
        if let status { lastError = status; shakes += 1 }
    }

    private func go(_ next: FlowStep, keepError: Bool = false) throws(PasscodeError) {
        step = next
        length = try lengthFor(next)
        if !keepError { error = .none }
    }

    private func lengthFor(_ s: FlowStep) throws(PasscodeError) -> Int {
        if s == .enterCode { return try store.resetCodeLength() }
        if kind == .reset { return PasscodeStore.resetPasscodeLength }  // the new passcode of a reset
        return try store.passcodeLength()
    }

    private func clearEntry() {
        entry.withMutableBytes { Sodium.wipe($0) }
        filled = 0
    }
}
