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
    /// Host callbacks (set through the C API); read and replaced under `lock`.
    private var hookStorage = Hooks()

    /// The host's callbacks as they are now.
    public var hooks: Hooks { lock.withLock { hookStorage } }

    /// Replaces some of the host's callbacks.
    public func updateHooks(_ change: (inout Hooks) -> Void) {
        lock.withLock { change(&hookStorage) }
    }

    /// Opens the store at `path`, creating it (mode 0600) when the file does not exist.
    /// Nothing is created or changed when opening fails.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        guard Sodium.initialize() else { throw PasscodeError.internalError("libsodium could not be initialised") }
        guard !path.isEmpty else { throw PasscodeError.misuse("the store path is empty") }
        guard options.cost.isValid else { throw PasscodeError.misuse("the Argon2id cost is outside libsodium's limits") }
        if let p = options.pepper, p.count != 32 { throw PasscodeError.misuse("the pepper must be 32 bytes") }
        self.path = path
        self.options = options
        let created = try FileSystem.prepareStoreFile(path)
        do {
            db = try Database(path: path, busyTimeoutMs: options.busyTimeoutMs)
            try PasscodeStore.checkAndMigrate(db)
        } catch {
            if created { FileSystem.removeStoreFiles(path) }
            throw error
        }
    }

    /// Validates the file as ours, sets the connection up, and runs pending migrations.
    private static func checkAndMigrate(_ db: Database) throws {
        // Read-only checks first: nothing is written to a file that is not ours.
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
        try db.exec("PRAGMA journal_mode=WAL")
        try db.exec("PRAGMA synchronous=FULL")
        try db.exec("PRAGMA secure_delete=ON")
        if version < Schema.currentVersion {
            try db.write {
                // Another process may have migrated meanwhile: read again under the write lock.
                let now = Int(try db.scalar("PRAGMA user_version")?.int ?? 0)
                for v in now..<Schema.currentVersion {
                    try db.exec(Schema.migrations[v])
                }
                try db.exec("PRAGMA application_id=\(Schema.applicationID)")
                try db.exec("PRAGMA user_version=\(Schema.currentVersion)")
            }
        }
        // A damaged schema (the table definitions are text in the file) is found here, not later.
        guard try Schema.shape(of: db) == Schema.expectedShape else {
            throw PasscodeError.corrupt("the store's tables do not have the expected columns; the file is damaged")
        }
    }

    // MARK: - Small helpers used by every part of the store

    func now() -> ClockReading { options.clock() }

    /// Runs `body` under the handle lock in a write transaction.
    func write<R>(_ body: () throws -> R) throws -> R {
        try lock.withLock { try db.write(body) }
    }

    /// Runs one read statement under the handle lock, without an explicit transaction (a single
    /// statement is atomic on its own).
    func readOne<R>(_ body: () throws -> R) throws -> R {
        try lock.withLock { try body() }
    }

    /// Runs `body` under the handle lock in a read transaction.
    func read<R>(_ body: () throws -> R) throws -> R {
        try lock.withLock { try db.read(body) }
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
