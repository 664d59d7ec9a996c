// A store bound to the TPM (TPM.swift has the TPM side; passcode-tpm(7)).
//
// Bound means: the passcode's wrap needs a secret only this TPM unseals, for the passcode's
// authorization (Crypto/KeyWrap.swift), and every attempt is counted twice, in the file (write-ahead,
// as always) and in a monotonic NV counter of the TPM, in the same write transaction. The file
// keeps the value the counter must have. A file whose value is behind the counter is an older
// copy (a restored backup would give its failed attempts back): that is logged, and a reset is
// required. One behind is the one case a kill explains (the counter moved, the transaction did
// not commit): it is counted as a failed attempt, so it gives nothing back either.

import CPasscodeShims

extension PasscodeStore {
    // MARK: - The owner authorization (provisioned mode)

    /// A connection to the TPM at `tcti`, with the owner authorization when the administrator's
    /// file provides one.
    func openTPM(_ tcti: String) throws(PasscodeError) -> TPMDevice {
        if let held = options.tpmOwnerAuthHeld {
            return try TPMDevice.open(tcti: tcti, ownerAuth: held.secret, source: held.source)
        }
        let path = options.tpmOwnerAuthFile
        return try TPMDevice.open(tcti: tcti, ownerAuth: try PasscodeStore.readOwnerAuth(path), source: path)
    }

    /// The owner authorization in `path`: 64 hex digits (32 bytes), a newline allowed. nil when
    /// there is no such file (unprovisioned). The file must be a regular file of root's that no
    /// one else may read or write: anything else is `tpmOwnerAuth`, never silently unprovisioned.
    static func readOwnerAuth(_ path: String) throws(PasscodeError) -> SecretBytes? {
        let fd = shim_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw PasscodeError.tpmOwnerAuth("the TPM owner authorization file \(path) cannot be opened (errno \(errno)): the library must run as root, or in the service")
        }
        defer { CPasscodeShims.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == 0, info.st_mode & 0o077 == 0 else {
            throw PasscodeError.tpmOwnerAuth("the TPM owner authorization file \(path) must be a regular file of root's that only root may read (chmod 600)")
        }
        let text = SecretBytes(count: 80)
        let n = text.withMutableBytes { CPasscodeShims.read(fd, $0.baseAddress, $0.count) }
        let bad = PasscodeError.tpmOwnerAuth("the TPM owner authorization file \(path) must hold 64 hex digits (scripts/tpm-provision.sh writes it)")
        guard n == 64 || (n == 65 && text.withBytes { $0[64] } == 10) else { throw bad }
        let auth = SecretBytes(count: 32)
        let ok = auth.withMutableBytes { out in
            text.withBytes { hex in
                func nibble(_ c: UInt8) -> UInt8? {
                    switch c {
                    case 48...57: return c - 48
                    case 97...102: return c - 87
                    case 65...70: return c - 55
                    default: return nil
                    }
                }
                for i in 0..<32 {
                    guard let hi = nibble(hex[2 * i]), let lo = nibble(hex[2 * i + 1]) else { return false }
                    out[i] = hi << 4 | lo
                }
                return true
            }
        }
        guard ok else { throw bad }
        return auth
    }

    /// The policy's guess limit, for a new PIN_FAIL index: the failures at which the schedule
    /// reaches its maximum, when its action ends the guessing (a reset or a logout); nil when the
    /// policy never stops guessing (then no hardware limit is made). While the MAC fails (with a
    /// pepper) the settings are the attacker's: the default policy's limit, the one the
    /// resolving write leaves (`resetUnauthenticatedLocked`).
    func guessLimitLocked() throws(PasscodeError) -> Int? {
        guard try macHoldsLocked() else {
            guard Setting.maxFailureAction.spec.defaultValue != Int64(MaxFailureAction.none.rawValue) else { return nil }
            let kind = LockoutScheduleKind(checked: Int32(Setting.lockoutSchedule.spec.defaultValue))
            return (kind == .android ? LockoutSchedule.android : LockoutSchedule.apple).guessLimit
        }
        guard try maxFailureActionLocked() != .none else { return nil }
        return try scheduleLocked().guessLimit
    }

    // MARK: - Open

    /// At open: a bound store needs the TPM option, and the option needs a TPM that answers.
    func checkTPMAtOpen() throws(PasscodeError) {
        let bound = try lock.withLock { () throws(PasscodeError) in try db.read { () throws(PasscodeError) in try load(TPMState.self).bound } }
        guard let tcti = options.tpm else {
            if bound { throw PasscodeError.tpmRequired }
            return
        }
        _ = try openTPM(tcti).lockout()
    }

    /// Whether the store is bound to a TPM (`passcode_tpm_is_bound`).
    public func isTPMBound() throws(PasscodeError) -> Bool {
        try cachedRead(.tpmBound) { () throws(PasscodeError) in try load(TPMState.self).bound }
    }

    /// The store's TPM (its `passcode_options_set_tpm` option) and what the binding promises on
    /// it (`passcode_tpm_posture`). Reads the TPM's properties once; counts nothing. A guess limit
    /// is promised only for the index the sealed object's policy names (the file names one, and
    /// the file is input: `TPMDevice.load` proves the two agree); when they do not, the store is
    /// reported not bound to this TPM, with no limit.
    public func tpmPosture() throws(PasscodeError) -> TPMPosture {
        guard let tcti = options.tpm else {
            throw PasscodeError.misuse("the store has no TPM: open it with passcode_options_set_tpm to ask for its TPM's posture (in service mode, passcoded.conf names the TPM: its `tpm` key)")
        }
        let (inFile, sealed) = try read(.recover) { () throws(PasscodeError) -> (Bool, TPMSealed?) in
            let bound = try load(TPMState.self).bound
            return (bound, bound ? try sealedLocked() : nil)
        }
        let device = try openTPM(tcti)
        let settings = try device.posture()
        var bound = inFile, pinLimit: UInt32 = 0
        if let sealed {
            do { pinLimit = try device.verifiedPinLimit(sealed) ?? 0 } catch PasscodeError.tpmMismatch(_) { bound = false }
        }
        var posture = TPMPosture()
        posture.ownerAuthSet = settings.ownerAuthSet
        posture.lockoutAuthSet = settings.lockoutAuthSet
        posture.maxTries = settings.lockout.maxFailures
        posture.recoveryTime = settings.lockout.intervalSeconds
        posture.lockoutRecovery = settings.lockoutRecoverySeconds
        posture.lockoutCounter = settings.lockout.failures
        posture.bound = bound
        posture.guessLimit = pinLimit
        return posture
    }

    /// One item of `tpmPosture()` (`passcode_tpm_posture`, and passcoded's TPMPosture for it).
    /// - Parameter item: A `passcode_tpm_posture_item`; any other value is `misuse`.
    public func tpmPostureValue(_ item: Int32) throws(PasscodeError) -> Int64 {
        guard let what = TPMPostureItem(checked: item) else { throw PasscodeError.misuse("unknown TPM posture item \(item)") }
        return try tpmPosture().value(what)
    }

    /// A connection to the store's TPM when the store is bound, else nil (a new wrap, not an attempt).
    func boundDevice() throws(PasscodeError) -> TPMDevice? {
        guard try read(.recover, { () throws(PasscodeError) in try load(TPMState.self).bound }) else { return nil }
        guard let tcti = options.tpm else { throw PasscodeError.tpmRequired }
        return try openTPM(tcti)
    }

    /// The TPM a reset seals the new passcode in. The file's binding row is the attacker's
    /// while the MAC fails, and always without a pepper: then the host's TPM option decides (a
    /// host that opens with it gets a bound store after the reset; a store the file says is
    /// bound still needs it), so that an edited `tpm_bound` never gets the store sealed unbound
    /// by the user's own reset (older copies would then give their guesses back).
    func deviceForReset() throws(PasscodeError) -> TPMDevice? {
        let trusted = try read(.recover) { () throws(PasscodeError) in integrityKey != nil ? try isIntactLocked() : false }
        guard !trusted, let tcti = options.tpm else { return try boundDevice() }
        return try openTPM(tcti)
    }

    /// The TPM a new passcode is sealed in: the store's when bound; the host's when it asked for
    /// one and no passcode is set yet (a store set up with the option is bound from then on).
    func deviceForNewPasscode() throws(PasscodeError) -> TPMDevice? {
        if let device = try boundDevice() { return device }
        guard let tcti = options.tpm, try !isPasscodeSet() else { return nil }
        return try openTPM(tcti)
    }

    // MARK: - Before an attempt

    /// Before an attempt is counted (one read): nil for a store that is not bound. For a bound
    /// one, a connection to its TPM, on which the passcode's sealed object is loaded: a wrap this
    /// TPM cannot load (another TPM, or this one cleared) is `tpmMismatch`, and the TPM's own
    /// lockout is `tpmLockout`; neither counts.
    func deviceForAttempt() throws(PasscodeError) -> TPMDevice? {
        let (bound, text) = try read(.recover) { () throws(PasscodeError) -> (Bool, String?) in
            let bound = try load(TPMState.self).bound
            return (bound, bound ? try passcodeRowLocked()?.text : nil)
        }
        guard bound else { return nil }
        guard let tcti = options.tpm else { throw PasscodeError.tpmRequired }
        let device = try openTPM(tcti)
        guard let text else { return device }  // no passcode: the attempt is refused as usual
        guard case .wrapped(let wrap) = try Verifier.parse(text, limit: options.cost), let sealed = wrap.tpm else {
            throw PasscodeError.corrupt("the store is bound to a TPM but its passcode verifier is not")
        }
        _ = try device.load(sealed)  // kept loaded for the unseal
        // Through a PIN_FAIL index (NO_DA) the DA lockout checks nothing: only the index's limit counts.
        if sealed.pinIndex == nil {
            let lockout = try device.lockout()
            if lockout.active { throw PasscodeError.tpmLockout(seconds: lockout.seconds) }
        }
        return device
    }

    enum CounterCheck { case inStep, oneLost, rolledBack(file: Int64, tpm: UInt64) }

    /// Inside the attempt's write transaction: compares the TPM's counter with the file's, and
    /// on agreement counts the attempt in the TPM and the file (committed with the attempt).
    func countAttemptInTPMLocked(_ device: TPMDevice) throws(PasscodeError) -> CounterCheck {
        var state = try load(TPMState.self)
        let before = state
        let index = try state.counterIndex()
        guard let value = try device.counter(index) else {
            throw PasscodeError.tpmMismatch("the store's attempt counter is not on this TPM (another TPM, or it was removed)")
        }
        let expected = UInt64(state.nvCount)
        let check: CounterCheck
        switch value {
        case expected: check = .inStep
        case expected &+ 1: check = .oneLost
        default: return .rolledBack(file: state.nvCount, tpm: value)
        }
        guard value < UInt64(Int64.max) else { throw PasscodeError.tpmFailed("the TPM's attempt counter is exhausted") }
        try device.increment(index)
        state.nvCount = Int64(value) + 1
        try save(state, over: before)
        return check
    }

    /// Inside the attempt's write transaction, before the passcode is checked (provisioned, a
    /// PIN_FAIL index, the owner authorization): the index's pinCount against the guesses the
    /// library accounts for (those charged from outside before, plus its consecutive failures).
    /// Any excess is guesses from outside the library (TPM2_PolicySecret by another process): the
    /// number charged to the passcode, returned to be counted as failures and logged. A count
    /// below what is charged (a success zeroed it) is raised back, so that every guess, the
    /// library's or another process's, comes out of the same `pinLimit`.
    func chargeOutsideGuessesLocked(_ device: TPMDevice, pin: UInt32, counts: (count: UInt32, limit: UInt32), failures: Int64) throws(PasscodeError) -> Int64 {
        var state = try load(TPMState.self)
        let before = state
        if state.outsidePin != Int64(pin) { (state.outsidePin, state.outsideGuesses) = (Int64(pin), 0) }
        let seen = Int64(counts.count)
        let excess = max(0, seen - state.outsideGuesses - failures)
        state.outsideGuesses = min(state.outsideGuesses + excess, Int64(counts.limit))
        try save(state, over: before)
        if seen < state.outsideGuesses {
            try device.setPinCount(pin, count: UInt32(state.outsideGuesses), limit: counts.limit)
        }
        return excess
    }

    /// After a success through a PIN_FAIL index (which set its pinCount to 0): the guesses
    /// charged from outside go back into it (best effort: the next attempt does it otherwise).
    func restoreOutsideGuesses(_ device: TPMDevice, pin: UInt32) {
        guard let state = try? read(.recover, { () throws(PasscodeError) in try load(TPMState.self) }), state.outsidePin == Int64(pin),
              state.outsideGuesses > 0, let counts = try? device.pinCounts(pin) else { return }
        if Int64(counts.count) < state.outsideGuesses {
            try? device.setPinCount(pin, count: UInt32(state.outsideGuesses), limit: counts.limit)
        }
    }

    // MARK: - A new wrap

    /// A new wrap of the data key and, when it is sealed in a TPM, the attempt counter there.
    struct NewWrap {
        let wrap: KeyWrap
        let kek: SecretBytes
        let binding: (device: TPMDevice, counter: UInt32)?
        /// The sealed object (and PIN_FAIL index) of the wrap this one replaces: the index is
        /// removed once the new wrap is written.
        var oldPin: TPMSealed? = nil

        var session: SessionEntry { SessionEntry(name: wrap.sessionName, kek: kek) }
    }

    /// Wraps `dataKey` under `input` (one Argon2id), sealed in `device` when given, whose
    /// attempt counter is defined when the store has none there yet (a first binding, or a reset
    /// on another TPM). Outside any transaction.
    func newWrap(_ input: SecretBytes, dataKey: SecretBytes, device: TPMDevice?) throws(PasscodeError) -> NewWrap {
        let limit = device?.provisioned == true ? try read(.recover) { () throws(PasscodeError) in try guessLimitLocked() } : nil
        let (wrap, kek) = try KeyWrap.makeReturningKEK(input, dataKey: dataKey, cost: options.cost, device: device, guessLimit: limit)
        return NewWrap(wrap: wrap, kek: kek, binding: try device.map { (p0) throws(PasscodeError) in (p0, try counterForNewWrap(p0)) },
                       oldPin: device == nil ? nil : try currentSealed())
    }

    /// After a new wrap is written (`new.oldPin`), or the passcode removed (by the user, or
    /// "forgot passcode"): removes the PIN_FAIL index the old wrap had, best effort (the owner
    /// authorization is needed, and nothing else may remove it), when the file names it no more.
    /// Only when the old sealed object loads with it, that is when its policy names that index:
    /// the file is input, and an index it names is not removed on its word alone (another store's
    /// would go with it). A mismatch leaves the index where it is.
    func retirePin(_ sealed: TPMSealed?, device: TPMDevice? = nil) {
        guard let sealed, let index = sealed.pinIndex, (try? currentSealed())?.pinIndex != index else { return }
        guard let device = device ?? options.tpm.flatMap({ try? openTPM($0) }), (try? device.load(sealed)) != nil else { return }
        try? device.undefinePin(index)
    }

    /// The TPM's sealed object (with its PIN_FAIL index, if any) the file's verifier holds.
    func currentSealed() throws(PasscodeError) -> TPMSealed? { try read(.recover) { () throws(PasscodeError) in try sealedLocked() } }

    /// The TPM's sealed object the file's verifier holds, if any.
    func sealedLocked() throws(PasscodeError) -> TPMSealed? {
        guard let text = try passcodeRowLocked()?.text, case .wrapped(let wrap)? = try? Verifier.parse(text, limit: options.cost) else {
            return nil
        }
        return wrap.tpm
    }

    /// The store's counter when this TPM has it (provisioned: only one the owner alone
    /// increments), else a new one.
    private func counterForNewWrap(_ device: TPMDevice) throws(PasscodeError) -> UInt32 {
        let state = try read(.recover) { () throws(PasscodeError) in try load(TPMState.self) }
        if state.nvIndex != 0, let index = try? state.counterIndex(), try device.counter(index) != nil {
            let ownerWritten = try device.counterIsOwnerWritten(index)
            if !device.provisioned || ownerWritten { return index }
        }
        return try device.defineCounter().index
    }

    /// In the transaction that writes `new`: the binding and the counter's current value (nothing
    /// for a wrap not sealed in a TPM).
    func recordBindingLocked(_ new: NewWrap) throws(PasscodeError) {
        guard let (device, index) = new.binding else { return }
        guard let value = try device.counter(index), value <= UInt64(Int64.max) else {
            throw PasscodeError.tpmFailed("the TPM's attempt counter is gone")
        }
        try update(TPMState.self) { state in
            state.bound = true
            state.nvIndex = Int64(index)
            state.nvCount = Int64(value)
        }
    }

    // MARK: - Bind and unbind

    /// Binds a store that has a passcode to the TPM the store was opened with (`passcode_tpm_bind`).
    /// Needs the passcode (a counted attempt); the data key stays the same.
    public func bindTPM(current: SecretBytes) throws(PasscodeError) {
        guard let tcti = options.tpm else {
            throw PasscodeError.misuse("open the store with passcode_options_set_tpm to bind it")
        }
        if try isTPMBound() { throw PasscodeError.state("the store is already bound to a TPM") }
        try checkFormat(current, length: try passcodeLength())
        let key = try verify(current)
        let new = try newWrap(hashInput(current), dataKey: key, device: try openTPM(tcti))
        let now = try now()
        try write { () throws(PasscodeError) in
            guard try !load(TPMState.self).bound else { throw PasscodeError.state("the store is already bound to a TPM") }
            try checkStillProvedLocked()  // the passcode verified above, not one set since
            try rewrapLocked(new)
            try recordBindingLocked(new)
        }
        recordProof(now, verifier: new.wrap.encoded)  // the same passcode, a new wrap: this handle still proved it
    }

    /// Unbinds a bound store (`passcode_tpm_unbind`): the passcode (checked through the TPM)
    /// wraps the data key alone again, and the TPM's attempt counter is removed.
    public func unbindTPM(current: SecretBytes) throws(PasscodeError) {
        guard try isTPMBound() else { throw PasscodeError.state("the store is not bound to a TPM") }
        try checkFormat(current, length: try passcodeLength())
        let key = try verify(current)
        let new = try newWrap(hashInput(current), dataKey: key, device: nil)
        let now = try now()
        let (old, oldPin): (TPMState, TPMSealed?) = try write { () throws(PasscodeError) in
            try checkStillProvedLocked()  // the passcode verified above, not one set since
            let old = try load(TPMState.self)
            let oldPin = try sealedLocked()
            try rewrapLocked(new)
            try update(TPMState.self) { $0 = TPMState() }
            return (old, oldPin)
        }
        recordProof(now, verifier: new.wrap.encoded)
        if let tcti = options.tpm, let device = try? openTPM(tcti) {  // best effort: the file no longer names them
            if let index = try? old.counterIndex() { try? device.undefineCounter(index) }
            if let oldPin, let index = oldPin.pinIndex, (try? device.load(oldPin)) != nil { try? device.undefinePin(index) }
        }
    }

    /// Writes a new wrap of the same data key (bind, unbind), moving the session keyring's entry.
    private func rewrapLocked(_ new: NewWrap) throws(PasscodeError) {
        revokeSessionKeyLocked()
        try db.updateVerifier(new.wrap.encoded)
        if heldKey != nil {
            heldKey?.session = new.session
            syncSessionKeyringLocked()
        }
    }
}

/// The TPM's owner authorization, read once and held in memory from `sodium_malloc`, wiped when
/// the last reference goes (SecretBytes). passcoded reads it as root before it drops its
/// privileges (passcoded(8), `tpm_owner_auth_file`) and hands it to its stores'
/// `StoreOptions.tpmOwnerAuthHeld`; it never leaves the process (no reply, no log carries it).
public final class TPMOwnerAuthorization: @unchecked Sendable {
    /// The 32 bytes; nil: there is none (unprovisioned: the file does not exist).
    let secret: SecretBytes?
    /// The file it came from, for messages.
    let source: String

    private init(secret: SecretBytes?, source: String) {
        self.secret = secret
        self.source = source
    }

    /// Reads `path` (the library's rules: a regular file of root's that only root may read, 64
    /// hex digits). A missing file is no authorization (unprovisioned) unless `required`.
    /// - Throws: `tpmOwnerAuth` naming the file and what is wrong with it (never its contents).
    public static func read(path: String, required: Bool) throws(PasscodeError) -> TPMOwnerAuthorization {
        let secret = try PasscodeStore.readOwnerAuth(path)
        if secret == nil && required {
            throw PasscodeError.tpmOwnerAuth("the TPM owner authorization file \(path) does not exist (scripts/tpm-provision.sh writes it)")
        }
        return TPMOwnerAuthorization(secret: secret, source: path)
    }

    /// Whether an authorization is held (the TPM is to be used provisioned).
    public var isHeld: Bool { secret != nil }
}
