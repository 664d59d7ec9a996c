// A libpasscode store: one SQLite file, shared by every process and thread that opens it.

/// How a store is opened. The C layer fills this from `passcode_options`.
public struct StoreOptions: Sendable {
    /// Argon2id cost for new hashes; stored hashes with other costs are upgraded on verify.
    public var cost: HashCost = .interactive
    /// 32 bytes mixed into every hash with a keyed BLAKE2b; kept by the host, never stored.
    public var pepper: SecretBytes?
    /// Accept passcodes the weak-passcode rules refuse (for hosts that must).
    public var allowWeak = false
    /// Where time comes from.
    public var clock: ClockSource = SystemClock.read
    /// How long a call waits for another process's write lock before `busy`.
    public var busyTimeoutMs: Int32 = 10_000
    /// Keep the key that opens the data key in the session keyring after a passcode unlock, so
    /// that a biometric unlock in a later process of the same login session releases the data
    /// key too (SessionKeyring.swift). On by default; only used while biometric unlock is on.
    public var sessionKeyring = true
    /// The TCTI of the TPM to bind the store to (PasscodeStore+TPM.swift); nil: no TPM. A store
    /// set up with it is bound and opens only with it.
    public var tpm: String?
    /// The TCTI when the host names none: the kernel's resource manager. Not tpm2-tss's own
    /// default, which would fall back to a simulator on localhost.
    public static let defaultTPM = "device:/dev/tpmrm0"
    /// The administrator's root-only file with the TPM's owner authorization (provisioned mode,
    /// passcode-tpm(7) "Provisioned mode"); absent: unprovisioned.
    public var tpmOwnerAuthFile = StoreOptions.defaultTPMOwnerAuthFile
    public static let defaultTPMOwnerAuthFile = "/etc/passcode/tpm-owner-auth"
    /// The owner authorization already read, held in wiped memory by a process that read it once
    /// (passcoded, as root, before it drops its privileges: TPMOwnerAuthorization.read). When
    /// set, `tpmOwnerAuthFile` is never read: the process that uses the TPM may not be able to.
    public var tpmOwnerAuthHeld: TPMOwnerAuthorization?

    public init() {}
}

/// The core's façade: the C ABI (Sources/libpasscode/Passcode) calls only its public methods, so another
/// back end can stand behind the same calls. Its parts are extensions in Features/, one file per
/// job; they reach the file only through `db` (the storage layer, Store/Storage.swift). A method
/// named `...Locked` runs inside a transaction its caller opened with `read` or `write` (the
/// handle lock held) and never takes the lock itself.
public final class PasscodeStore: @unchecked Sendable {
    public let path: String
    let options: StoreOptions
    /// Serialises use of `db` and of the in-memory state below between threads.
    let lock = Mutex()
    /// The storage layer (Store/Storage.swift): every row of the file is read and written there.
    let db: Storage
    /// Wrong guesses of the last 5 minutes, as keyed fingerprints (never the digits), so that
    /// typing the same wrong passcode again does not count twice. Memory only.
    var recentWrongGuesses: [(fingerprint: [UInt8], bootMs: Int64)] = []
    let fingerprintKey = Sodium.randomBytes(32)
    /// The reset-code tries this handle took, by code (its stored hash), and the reset-code
    /// requests it made: a bound that no file edit moves. While the store is tampered the reset
    /// rows' own MAC proves them genuine, not current, so copying older ones back would give
    /// tries and requests back; this handle still allows no more than the policy. Memory only.
    var resetTriesTaken: [String: Int64] = [:]
    var resetRequestsMade: [ClockReading] = []
    /// The proof of the passcode last entered correctly on this handle (verify, a flow, authorize,
    /// set, change, reset), which a weakening change needs, and the length this handle chose for
    /// its first passcode. Memory only, per handle (per bus connection in passcoded: `callers`).
    var connection: ConnectionState {
        get { callers?()?.connection ?? ownConnection }
        set {
            if let caller = callers?() { caller.connection = newValue } else { ownConnection = newValue }
        }
    }
    private var ownConnection = ConnectionState()
    /// For a handle whose callers' calls overlap (passcoded: one handle per store serves every
    /// bus connection of a uid, and a call waiting on its host's hook lets the others run): the
    /// caller of the calling thread, whose hooks and connection state then stand for the handle's
    /// own (`hooks`, `connection`), so that no call's state is swapped into the handle. Nil, or
    /// no caller answered: the handle's own. Set before the handle is used.
    public var callers: (@Sendable () -> CallerState?)?
    /// The data key while this handle holds it (PasscodeStore+DataKey.swift). Memory only, per handle.
    var heldKey: HeldKey?
    /// With a pepper: the key of the MAC over the security state (see Integrity.swift).
    let integrityKey: SecretBytes?
    /// Answers of the cheap queries a lock screen polls, valid while the change stamp they were
    /// read under holds (see `cachedRead`). Memory only, per handle, under `lock`.
    var answers = Answers()
    /// Set by `close()`: the handle is closed and holds no key any more. Under `lock`.
    private var closed = false
    /// Host callbacks (set through the C API); read and replaced under `lock`.
    private var hookStorage = Hooks()

    /// The host's callbacks as they are now (the calling thread's caller's, with `callers`).
    public var hooks: Hooks {
        if let caller = callers?() { return caller.hooks }
        return lock.withLock { hookStorage }
    }

    /// Replaces some of the host's callbacks.
    public func updateHooks(_ change: (inout Hooks) -> Void) {
        lock.withLock { change(&hookStorage) }
    }

    /// The host closed this handle (`passcode_close`): the data key it holds is wiped at once,
    /// with the proof of a recent passcode and the remembered wrong guesses, even if a flow or a
    /// call still running keeps the object alive; a call that finishes later keeps no key.
    public func close() {
        lock.withLock {
            closed = true
            heldKey = nil
            ownConnection = ConnectionState()
            recentWrongGuesses.removeAll()
        }
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { lock.withLock { closed } }

    /// Whether `close()` was called, for code that holds `lock`.
    var isClosedLocked: Bool { closed }

    /// Opens the store at `path`, creating it (mode 0600) when the file does not exist.
    /// Nothing is changed when opening fails; a new store, once it has its name, stays.
    ///
    /// A new store is built under a temporary name beside `path` (schema, and with a pepper its
    /// seal) and only then linked to its name, so the path never names an empty file of ours: an
    /// empty file, or an SQLite file with no table, found there was put there by someone else
    /// (a truncated store), and with a pepper it is never taken for a new store
    /// (`checkPepperAtOpen`).
    public convenience init(path: String, options: StoreOptions = StoreOptions()) throws(PasscodeError) {
        guard Sodium.initialize() else { throw PasscodeError.internalError("libsodium could not be initialised") }
        guard !path.isEmpty else { throw PasscodeError.misuse("the store path is empty") }
        guard options.cost.isValid else { throw PasscodeError.misuse("the Argon2id cost is outside libsodium's limits") }
        if let p = options.pepper, p.count != 32 { throw PasscodeError.misuse("the pepper must be 32 bytes") }
        try Storage.loadSQLite()  // before anything is made: without SQLite, no file either
        try PasscodeStore.makeIfAbsent(path, options: options)
        // Once linked, the new store stays even when this open fails (busy, say): it is whole
        // and sealed, and another process may already have set its first passcode.
        try self.init(opening: path, options: options, new: false)
    }

    /// Checks the path and, when no file is there, builds a new store under a temporary name and
    /// links it to `path` (see `init(path:options:)`). Also what an open does again when the store
    /// it found was removed meanwhile (`removeStore` in another process).
    private static func makeIfAbsent(_ path: String, options: StoreOptions) throws(PasscodeError) {
        let absent = try FileSystem.prepareStoreFile(path)
        FileSystem.removeStrayTemporaries(beside: path)
        if absent {
            let temp = try FileSystem.createTemporaryStoreFile(beside: path)
            defer { temp.discard() }  // after the link: only the temporary name goes
            let building = try PasscodeStore(opening: temp.path, options: options, new: true)
            // All of it in the file before it gets its name (a checkpoint that fails, on a full
            // disk, must not leave a store whose rest is in a -wal that is then deleted).
            guard try building.db.checkpointTruncate() else {
                throw PasscodeError.io("the new store could not be written out in full")
            }
            building.db.close()
            _ = try FileSystem.linkStoreFile(temp.path, to: path)  // false: another process's came first
        }
    }

    /// Opens the store file at `path`; `new`: the temporary file a new store is built in.
    /// The file is opened before the object exists, so that a failed open makes none: Embedded
    /// Swift's runtime (6.3) does not free an object whose initializer throws before all its
    /// stored properties are set (swift_deallocPartialClassInstance only destroys them).
    private convenience init(opening path: String, options: StoreOptions, new: Bool) throws(PasscodeError) {
        // A store removed while this open ran is made again (a new, empty one) and opened.
        let db = try Storage.open(path: path, busyTimeoutMs: options.busyTimeoutMs,
                                  makeAgain: new ? nil : { () throws(PasscodeError) in try PasscodeStore.makeIfAbsent(path, options: options) })
        self.init(path: path, options: options, db: db)
        try checkPepperAtOpen(new: new)
        try checkTPMAtOpen()  // for a new store too: a TPM that does not answer creates nothing
        if new { return }
        try? finishPendingWipe()  // best effort: a reader elsewhere may still hold the log
    }

    private init(path: String, options: StoreOptions, db: Storage) {
        self.path = path
        self.options = options
        integrityKey = options.pepper.map(Integrity.key(pepper:))
        self.db = db
    }

    // MARK: - Small helpers used by every part of the store

    /// The host's clock, refused (`clockOutOfRange`) outside `ClockReading.bootRange` and
    /// `wallRange`: the one place a reading enters, so no time arithmetic sees an extreme value.
    func now() throws(PasscodeError) -> ClockReading { try options.clock().checked() }

    /// Reads a record (inside a transaction).
    func load<R: StateRecord>(_: R.Type) throws(PasscodeError) -> R { try db.load(R.self) }

    /// Writes the fields of `record` that differ from `old`.
    func save<R: StateRecord>(_ record: R, over old: R) throws(PasscodeError) { try db.save(record, over: old) }

    /// Loads a record, lets `body` change it, and saves what changed (inside a transaction).
    func update<R: StateRecord, T>(_: R.Type, _ body: (inout R) throws(PasscodeError) -> T) throws(PasscodeError) -> T {
        let old = try load(R.self)
        var record = old
        let result = try body(&record)
        try save(record, over: old)
        return result
    }

    /// Runs `body` under the handle lock in a write transaction. With a pepper the security
    /// state is checked against its MAC first and sealed again after `body` (see `IntegrityUse`).
    func write<R>(_ use: IntegrityUse = .check, _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try lock.withLock { () throws(PasscodeError) in
            guard integrityKey != nil else { return try db.write(body) }
            let outcome: Result<R, PasscodeError> = try db.write { () throws(PasscodeError) in
                let intact = try isIntactLocked()
                if !intact {
                    try logTamperOnceLocked()  // seals nothing: the store stays tampered
                    // The reset path goes on while tampered (`.recover`): its rows keep a MAC of
                    // their own, and a pending code whose rows fail it is dropped, so that an
                    // edited `tries` (or request) never buys a try, and a deleted request never
                    // gives one back: the day's request budget counts as spent (see
                    // `spendResetBudgetLocked`).
                    if try !resetRowsIntactLocked() {
                        try db.deleteResetCodes()
                        try spendResetBudgetLocked(now: try now())
                    }
                }
                if !intact && use == .check { return .failure(.tampered) }  // commits only the log entry (and the drops)
                if !intact && use == .resolve {
                    // The write that ends the edit drops rows it could not read (a value over the
                    // length limit), so that it can seal; logged as a further tamper event. Then
                    // nothing it cannot authenticate survives the seal: see `resetUnauthenticatedLocked`.
                    if try db.purgeOversizedRows() > 0 { try logLocked(.tamperDetected, now: try now()) }
                    try resetUnauthenticatedLocked(now: try now())
                }
                let result = try body()
                if intact || use == .resolve { try sealLocked() } else if use == .recover { try sealResetRowsLocked() }
                return .success(result)
            }
            return try outcome.get()
        }
    }

    /// Runs `body` holding the store's writers' lock (`Database.exclusive`) across the
    /// transactions it makes; the handle lock is taken only to take and to release it.
    func exclusively<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try lock.withLock { () throws(PasscodeError) in try db.enterExclusive() }
        defer { lock.withLock { db.leaveExclusive() } }
        return try body()
    }

    /// Runs `body` under the handle lock in a read transaction (after the MAC check, with a pepper).
    func read<R>(_ use: IntegrityUse = .check, _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try lock.withLock { () throws(PasscodeError) in try readLocked(use, body) }
    }

    /// `read`'s transaction, for a caller that holds the handle lock.
    func readLocked<R>(_ use: IntegrityUse, _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try db.read { () throws(PasscodeError) in
            if integrityKey != nil && use == .check, try !isIntactLocked() { throw PasscodeError.tampered }
            return try body()
        }
    }

    /// As `read`, for a `body` whose answer depends on the file's contents only (no clock, no
    /// memory state): the answer is kept under `question` and given again, without asking
    /// SQLite, for as long as the store's change stamp stays the one seen before it was read.
    /// Any commit, by this connection or by another process, changes the stamp, so the next
    /// call after it reads the file again. The stamp is taken before the read: if a commit
    /// lands in between, the answer is newer than its stamp and is simply read again next time.
    /// Failures are never kept.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func cachedRead<R: CachedAnswer>(_ question: Answers.Question, _ use: IntegrityUse = .check, _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try cachedRead(use, get: { $0.answers.values[question].flatMap(R.init(cached:)) }, set: { $0.answers.values[question] = $1.cached }, body)
    }

    /// As `cachedRead(_:_:_:)`, with the answer kept where `get` and `set` say: a typed slot of
    /// `Answers` for an answer read on every redraw (the lock screen's), which then costs neither
    /// a dictionary lookup nor a conversion from `Answer`. The stamp rule is the same.
    /// `get` and `set` reach into `answers` themselves (under the lock), so that only the slot
    /// is read, not a copy of the whole cache.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func cachedRead<R>(_ use: IntegrityUse = .check, get: (PasscodeStore) -> R?, set: (PasscodeStore, R) -> Void,
                       _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try lock.withLock { () throws(PasscodeError) in
            let stamp = db.changeStamp()
            if let stamp, stamp == answers.stamp, let known = get(self) { return known }
            let answer = try readLocked(use, body)
            if let stamp {
                if stamp != answers.stamp { answers = Answers(stamp: stamp) }
                set(self, answer)
            }
            return answer
        }
    }
}

/// The cache behind `cachedRead`: answers read while the store's change stamp was `stamp`.
struct Answers {
    enum Question: Hashable {
        case lockEnabled, length, attempts, lockStatus, tpmBound, recoveryKey
        case setting(Setting)
    }

    var stamp: ChangeStamp?
    var values: [Question: Answer] = [:]
    /// What the biometric policy and the lock screen read (`PasscodeStore.biometricInputs()`).
    var biometricInputs: PasscodeStore.BiometricInputs?
    /// Whether a passcode is set (`passcode_is_set`, the query polled most).
    var passcodeSet: Bool?
    /// The lock screen (`PasscodeStore.lockScreenReading()`), when it needs no clock.
    var screen: PasscodeStore.ScreenAnswer?
    /// The lock screen as the layer above lays it out (`PasscodeStore.copyLockScreen`), when
    /// `screenImageKept` is `.clockFree`.
    var screenImage = LockScreenImage()
    var screenImageKept = PasscodeStore.ScreenImageKept.nothing
}

/// One answer kept by `cachedRead`: a value of one of the types the cached queries answer with
/// (an enum rather than `Any`, so that no dynamic cast is needed to give it back).
enum Answer {
    case bool(Bool), int(Int), int64(Int64), attempts(AttemptState), lockStatus(LockStatus)
}

/// A type `cachedRead(_:_:_:)` can keep under a question.
protocol CachedAnswer {
    init?(cached: Answer)
    var cached: Answer { get }
}

extension Bool: CachedAnswer {
    init?(cached: Answer) { guard case .bool(let v) = cached else { return nil }; self = v }
    var cached: Answer { .bool(self) }
}

extension Int: CachedAnswer {
    init?(cached: Answer) { guard case .int(let v) = cached else { return nil }; self = v }
    var cached: Answer { .int(self) }
}

extension Int64: CachedAnswer {
    init?(cached: Answer) { guard case .int64(let v) = cached else { return nil }; self = v }
    var cached: Answer { .int64(self) }
}

extension AttemptState: CachedAnswer {
    init?(cached: Answer) { guard case .attempts(let v) = cached else { return nil }; self = v }
    var cached: Answer { .attempts(self) }
}

extension LockStatus: CachedAnswer {
    init?(cached: Answer) { guard case .lockStatus(let v) = cached else { return nil }; self = v }
    var cached: Answer { .lockStatus(self) }
}

/// One caller's own part of a handle that several callers use at once (`PasscodeStore.callers`):
/// the host's callbacks asked for it, and its connection state, read and written under the
/// handle's lock by the one call of that caller running.
public final class CallerState: @unchecked Sendable {
    public let hooks: Hooks
    public var connection: ConnectionState

    public init(hooks: Hooks = Hooks(), connection: ConnectionState = ConnectionState()) {
        self.hooks = hooks
        self.connection = connection
    }
}

/// The host's callbacks. Each returns nil on success or the host's message on failure.
public struct Hooks: @unchecked Sendable {
    /// Told when the maximum failures or "forgot passcode" logs the user out.
    public var logout: (@Sendable (_ reason: Int32) -> Void)?
    /// Asked before a setting change is committed; failure rolls the change back.
    public var settingChange: (@Sendable (_ key: String, _ old: String, _ new: String) -> String?)?
    /// Hands a reset code to the host for delivery; failure discards the code.
    public var deliverResetCode: (@Sendable (_ code: SecretBytes) -> String?)?
    /// Told after a reset or another security event.
    public var notify: (@Sendable (_ event: Int32) -> Void)?
    /// Asked before a device session is signed out; failure keeps the session.
    public var signOutSession: (@Sendable (_ sessionID: String) -> String?)?
    /// Told after the account was deleted and the store wiped.
    public var accountDeleted: (@Sendable () -> Void)?
    /// Asked before a passcode lifecycle change is committed; failure rolls the change back.
    public var lifecycle: (@Sendable (_ event: Int32) -> String?)?

    public init() {}
}
