// A libpasscode store: one SQLite file, shared by every process and thread that opens it.
import Glibc

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
    /// README "Provisioned mode"); absent: unprovisioned.
    public var tpmOwnerAuthFile = StoreOptions.defaultTPMOwnerAuthFile
    public static let defaultTPMOwnerAuthFile = "/etc/passcode/tpm-owner-auth"

    public init() {}
}

public final class PasscodeStore: @unchecked Sendable {
    public let path: String
    let options: StoreOptions
    /// Serialises use of `db` and of the in-memory state below between threads.
    let lock = Lock()
    let db: Database
    /// Wrong guesses of the last 5 minutes, as keyed fingerprints (never the digits), so that
    /// typing the same wrong passcode again does not count twice. Memory only.
    var recentWrongGuesses: [(fingerprint: [UInt8], bootMs: Int64)] = []
    let fingerprintKey = Sodium.randomBytes(32)
    /// When the passcode was last entered correctly on this handle (verify, a flow, authorize,
    /// set, change, reset): the proof a weakening setting change needs. Memory only, per handle.
    var lastProof: BootInstant?
    /// The data key while this handle holds it (DataKey.swift). Memory only, per handle.
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

    /// The host's callbacks as they are now.
    public var hooks: Hooks { lock.withLock { hookStorage } }

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
            lastProof = nil
            recentWrongGuesses.removeAll()
        }
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { lock.withLock { closed } }

    /// Whether `close()` was called, for code that holds `lock`.
    var isClosedLocked: Bool { closed }

    /// Opens the store at `path`, creating it (mode 0600) when the file does not exist.
    /// Nothing is created or changed when opening fails.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        guard Sodium.initialize() else { throw PasscodeError.internalError("libsodium could not be initialised") }
        guard !path.isEmpty else { throw PasscodeError.misuse("the store path is empty") }
        guard options.cost.isValid else { throw PasscodeError.misuse("the Argon2id cost is outside libsodium's limits") }
        if let p = options.pepper, p.count != 32 { throw PasscodeError.misuse("the pepper must be 32 bytes") }
        self.path = path
        self.options = options
        integrityKey = options.pepper.map(Integrity.key(pepper:))
        let created = try FileSystem.prepareStoreFile(path)
        do {
            db = try Database(path: path, busyTimeoutMs: options.busyTimeoutMs)
            try PasscodeStore.checkAndMigrate(db)
            try checkPepperAtOpen()
            try checkTPMAtOpen()
            try? finishPendingWipe()  // best effort: a reader elsewhere may still hold the log
        } catch {
            if created { FileSystem.removeStoreFiles(path) }
            throw error
        }
    }

    /// Validates the file as ours, sets the connection up, and runs pending migrations.
    private static func checkAndMigrate(_ db: Database) throws {
        // Read-only checks first, in one snapshot: nothing is written to a file that is not ours.
        let version: Int = try db.read {
            let appID = try db.scalar("PRAGMA application_id")?.int ?? 0
            let version = Int(try db.scalar("PRAGMA user_version")?.int ?? 0)
            let tables = try db.scalar("SELECT count(*) FROM sqlite_master")?.int ?? 0
            if appID != Schema.applicationID {
                guard appID == 0 && version == 0 && tables == 0 else {
                    throw PasscodeError.notAStore("the file is a database of another program, not a libpasscode store")
                }
            }
            if version > Schema.currentVersion {
                throw PasscodeError.newerSchema(found: version, supported: Schema.currentVersion)
            }
            if version < 0 {  // the header's user_version is four bytes of the file: input too
                throw PasscodeError.corrupt("the store's schema version (\(version)) is damaged")
            }
            // The schema is input too: it must be the one the version says, before any write
            // (journal_mode=WAL below writes the header). Every later transaction checks again
            // when another connection changed the schema (SQLite.swift, recheckSchema).
            try Schema.check(db, version: version)
            return version
        }
        try db.checkSharedMemory()  // when the file was in WAL mode already: the -shm just read
        try db.exec("PRAGMA journal_mode=WAL")
        try db.exec("PRAGMA synchronous=FULL")
        try db.exec("PRAGMA secure_delete=ON")
        if version < Schema.currentVersion {
            try db.write {
                // Another process may have migrated meanwhile: read again under the write lock.
                let now = Int(try db.scalar("PRAGMA user_version")?.int ?? 0)
                try Schema.check(db, version: now)
                for v in now..<Schema.currentVersion {
                    try db.exec(Schema.migrations[v])
                }
                try db.exec("PRAGMA application_id=\(Schema.applicationID)")
                try db.exec("PRAGMA user_version=\(Schema.currentVersion)")
            }
        }
        // From here on the store must have today's schema, checked again whenever it changes.
        db.schemaCheck = { try Schema.check($0, version: Schema.currentVersion) }
        try db.checkSchemaNow()
        try db.checkSharedMemory()
    }

    // MARK: - Small helpers used by every part of the store

    /// The host's clock, refused (`clockOutOfRange`) outside `ClockReading.bootRange` and
    /// `wallRange`: the one place a reading enters, so no time arithmetic sees an extreme value.
    func now() throws -> ClockReading { try options.clock().checked() }

    /// Runs `body` under the handle lock in a write transaction. With a pepper the security
    /// state is checked against its MAC first and sealed again after `body` (see `IntegrityUse`).
    func write<R>(_ use: IntegrityUse = .check, _ body: () throws -> R) throws -> R {
        try lock.withLock {
            guard integrityKey != nil else { return try db.write(body) }
            let outcome: Result<R, PasscodeError> = try db.write {
                let intact = try isIntactLocked()
                if !intact {
                    try logTamperOnceLocked()  // seals nothing: the store stays tampered
                    // The reset path goes on while tampered (`.recover`): its rows keep a MAC of
                    // their own, and a pending code whose rows fail it is dropped, so that an
                    // edited `tries` (or request) never buys a try, and a deleted request never
                    // gives one back: the day's request budget counts as spent (see
                    // `spendResetBudgetLocked`).
                    if try !resetRowsIntactLocked() {
                        try db.query("DELETE FROM reset_code")
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

    /// Runs `body` under the handle lock in a read transaction (after the MAC check, with a pepper).
    func read<R>(_ use: IntegrityUse = .check, _ body: () throws -> R) throws -> R {
        try lock.withLock { try readLocked(use, body) }
    }

    private func readLocked<R>(_ use: IntegrityUse, _ body: () throws -> R) throws -> R {
        try db.read {
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
    func cachedRead<R>(_ question: Answers.Question, _ use: IntegrityUse = .check, _ body: () throws -> R) throws -> R {
        try cachedRead(use, get: { $0.answers.values[question] as? R }, set: { $0.answers.values[question] = $1 }, body)
    }

    /// As `cachedRead(_:_:_:)`, with the answer kept where `get` and `set` say: a typed slot of
    /// `Answers` for an answer read on every redraw (the lock screen's), which then costs neither
    /// a dictionary lookup nor a cast from `Any`. The stamp rule is the same.
    /// `get` and `set` reach into `answers` themselves (under the lock), so that only the slot
    /// is read, not a copy of the whole cache.
    func cachedRead<R>(_ use: IntegrityUse = .check, get: (PasscodeStore) -> R?, set: (PasscodeStore, R) -> Void,
                       _ body: () throws -> R) throws -> R {
        try lock.withLock {
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
    var values: [Question: Any] = [:]
    /// What the biometric policy and the lock screen read (`PasscodeStore.biometricInputs()`).
    var biometricInputs: PasscodeStore.BiometricInputs?
    /// Whether a passcode is set (`passcode_is_set`, the query polled most).
    var passcodeSet: Bool?
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

/// File-system checks before SQLite sees the path, so each problem gets its own status.
enum FileSystem {
    /// Returns true when it created the (empty, mode 0600) file.
    static func prepareStoreFile(_ path: String) throws -> Bool {
        var st = stat()
        if stat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { throw PasscodeError.isDirectory("the store path is a directory") }
            if (st.st_mode & S_IFMT) != S_IFREG { throw PasscodeError.notAStore("the store path is not a regular file") }
            try checkFolder(parentDirectory(path))
            // A file of another program (/etc/passwd, a photo) is named as such before its owner
            // or mode is judged: no advice to chmod a file that libpasscode did not make.
            if !looksLikeStore(path) {
                throw PasscodeError.notAStore("\(path) is not a libpasscode store (not an SQLite database); refusing it")
            }
            try checkOwnership(path, what: "the store file")
            for suffix in ["-journal", "-wal", "-shm"] where lstat(path + suffix, &st) == 0 {
                try checkOwnership(path + suffix, what: "the store's \(suffix.dropFirst()) file")
            }
            if access(path, R_OK | W_OK) != 0 {
                throw PasscodeError.readOnly("the store file cannot be written (\(errnoText()))")
            }
            if access(parentDirectory(path), W_OK | X_OK) != 0 {
                throw PasscodeError.readOnly("the store's folder cannot be written (\(errnoText()))")
            }
            return false
        }
        let parent = parentDirectory(path)
        var pst = stat()
        if stat(parent, &pst) != 0 || (pst.st_mode & S_IFMT) != S_IFDIR {
            throw PasscodeError.notFound("the folder for the store does not exist")
        }
        if access(parent, W_OK | X_OK) != 0 {
            throw PasscodeError.readOnly("the folder for the store cannot be written (\(errnoText()))")
        }
        try checkFolder(parent)
        let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            if errno == EEXIST { return false }  // another process created it just now
            if errno == ENOSPC { throw PasscodeError.full("the disk is full") }
            if errno == EROFS || errno == EACCES { throw PasscodeError.readOnly("the store cannot be created (\(errnoText()))") }
            throw PasscodeError.io("the store cannot be created (\(errnoText()))")
        }
        fchmod(fd, 0o600)  // whatever the umask
        close(fd)
        return true
    }

    /// Whether the file may be a libpasscode store: empty (created, not yet written), or an
    /// SQLite database whose application_id is libpasscode's or not yet set. An unreadable file
    /// counts as one: its owner and mode are judged next.
    static func looksLikeStore(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 { return true }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        if n <= 0 { return true }
        let magic = Array("SQLite format 3".utf8) + [0]
        if n < magic.count || Array(header[0..<magic.count]) != magic { return false }
        if n < 72 { return true }
        let appID = header[68..<72].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return appID == 0 || appID == Schema.applicationID
    }

    /// As OpenSSH's StrictModes: a store (or its -wal or -shm) that another user owns, or that
    /// group or others may read or write, was not made by us for us, and is refused.
    static func checkOwnership(_ path: String, what: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) != S_IFREG {
            throw PasscodeError.permission("\(what) \(path) is not a regular file (a link or a device); refusing it")
        }
        if st.st_uid != geteuid() {
            throw PasscodeError.permission("\(what) \(path) is owned by uid \(st.st_uid), not by this user (uid \(geteuid())); refusing it")
        }
        if st.st_mode & 0o066 != 0 {
            let mode = String(st.st_mode & 0o777, radix: 8)
            throw PasscodeError.permission("\(what) \(path) may be read or written by group or others (mode 0\(mode)); chmod 600 it")
        }
    }

    /// As OpenSSH's StrictModes for ~/.ssh: the folder must be owned by this user (or root) and
    /// writable by no one else. A folder others may write, sticky bit or not, lets them plant the
    /// store's -journal, -wal or -shm before SQLite creates them (the sticky bit only stops them
    /// from removing ours), so it is refused, naming the folder and why.
    static func checkFolder(_ path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        if st.st_uid != geteuid() && st.st_uid != 0 {
            throw PasscodeError.permission("the store's folder \(path) is owned by uid \(st.st_uid), neither this user (uid \(geteuid())) nor root; refusing it")
        }
        if st.st_mode & 0o022 != 0 {
            let mode = String(st.st_mode & 0o7777, radix: 8)
            throw PasscodeError.permission("the store's folder \(path) may be written by group or others (mode 0\(mode)), who could plant the store's -journal, -wal or -shm (a sticky bit does not stop that); keep the store in a folder only you can write (chmod 700)")
        }
        try checkAncestors(of: path)
    }

    /// Every folder above the store's folder, up to /, as OpenSSH's StrictModes checks the path
    /// to ~/.ssh: whoever may write one of them can rename the store's folder away and put
    /// another in its place. Each must be owned by this user or root and writable by no one
    /// else, except a root-owned folder with the sticky bit (such as /tmp): there no other
    /// user may rename an entry they do not own.
    static func checkAncestors(of folder: String) throws {
        guard let resolved = realpath(folder, nil) else { return }
        var path = String(cString: resolved)
        free(resolved)
        while path != "/" {
            path = parentDirectory(path)
            var st = stat()
            guard stat(path, &st) == 0 else { return }
            if st.st_uid != geteuid() && st.st_uid != 0 {
                throw PasscodeError.permission("the folder \(path) above the store is owned by uid \(st.st_uid), neither this user (uid \(geteuid())) nor root, who could rename the store's folder away and put another in its place; keep the store on a path only you and root control")
            }
            let sticky = st.st_mode & 0o1000 != 0 && st.st_uid == 0
            if st.st_mode & 0o022 != 0 && !sticky {
                let mode = String(st.st_mode & 0o7777, radix: 8)
                throw PasscodeError.permission("the folder \(path) above the store may be written by group or others (mode 0\(mode)) without being a root-owned sticky folder, so they could rename the store's folder away and put another in its place; keep the store on a path only you and root can write")
            }
        }
    }

    static func removeStoreFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
