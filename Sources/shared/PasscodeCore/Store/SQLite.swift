// The one place that talks to SQLite. Everything else sees `Database` and `SQLValue`.
internal import CSQLite
import CPasscodeShims

enum SQLValue: Equatable {
    case null
    case int(Int64)
    case text(String)
    case blob([UInt8])

    var int: Int64? { if case .int(let v) = self { return v } else { return nil } }
    var text: String? { if case .text(let v) = self { return v } else { return nil } }
    var blob: [UInt8]? { if case .blob(let v) = self { return v } else { return nil } }
}

/// What `Database.changeStamp()` returns: the 48 bytes of the wal-index header.
struct ChangeStamp: Equatable {
    var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0, w4: UInt64 = 0, w5: UInt64 = 0
    /// How many times the connection was opened again (`Database.reopen`): a stamp read
    /// from another wal-index never equals one read before.
    var connection: UInt64 = 0
}

/// One SQLite connection with a statement cache. Not thread-safe by itself: `PasscodeStore`
/// serialises every use under its lock.
final class Database {
    private var db: OpaquePointer?
    /// The connection's main file (`csqlite_main_file`), the same from open to close: what
    /// `changeStamp` reads the wal-index through.
    private var mainFile: UnsafeMutablePointer<sqlite3_file>?
    private var statements: [String: OpaquePointer] = [:]
    /// The store's path, for the check of its -shm file.
    let path: String
    /// The progress handler's count for the statement running now (`csqlite_harden`).
    private let budget = UnsafeMutablePointer<csqlite_budget>.allocate(capacity: 1)
    /// Checks the file's schema (sqlite_master) and throws when it is not one libpasscode made;
    /// run again at the start of a transaction whenever the schema cookie moved.
    var schemaCheck: ((Database) throws(PasscodeError) -> Void)?
    /// The schema cookie (`PRAGMA schema_version`) `schemaCheck` last passed under.
    private var checkedSchemaCookie: Int64?
    /// How long a write waits for the writers' lock (the busy timeout).
    private let busyTimeoutMs: Int32
    /// The -wal and -shm files this connection has open (shim.h, csqlite_log_files_moved), each
    /// learnt once (the -shm's by `checkSharedMemory` at open, so that no later check reads
    /// /proc/self/maps again).
    private var logFiles = csqlite_log_ids()
    /// Nesting of `exclusive`: the writers' lock is held while above 0.
    private var exclusiveDepth = 0
    /// How many times the connection was opened again (`reopen`).
    private var reopenings: UInt64 = 0
    /// After the connection was opened again: the checks of a new open (Storage.checkAndMigrate).
    var openChecks: ((Database) throws(PasscodeError) -> Void)?
    /// The store file this connection has open, in `OpenStoreFiles` while it is open.
    private var openFile: OpenStoreFiles.ID?
    /// Set by `closeRemoved`: the store was removed through this connection.
    private var removed = false

    /// Opens an existing file read-write (the caller creates it, with mode 0600).
    init(path: String, busyTimeoutMs: Int32) throws(PasscodeError) {
        self.path = path
        self.busyTimeoutMs = busyTimeoutMs
        try openConnection()
    }

    /// Opens the SQLite connection (`init`, `reopen`).
    private func openConnection() throws(PasscodeError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        try Database.loadSQLite()
        // Every file SQLite opens for the store is checked on its descriptor (shim.h).
        guard let vfs = csqlite_strict_vfs_name() else {
            throw PasscodeError.internalError("SQLite's default VFS is not the unix one: the store's files cannot be checked")
        }
        _ = Database.refusal()  // none left over from before
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        if rc != SQLITE_OK {
            let err = Database.error(rc, db, context: "cannot open the store")
            sqlite3_close_v2(db)
            db = nil
            throw err
        }
        sqlite3_extended_result_codes(db, 1)
        // Before anything is read: the file's schema is attacker input (shim.h, csqlite_harden).
        let hardened = csqlite_harden(db, budget)
        if hardened != SQLITE_OK {
            let err = PasscodeError.internalError("cannot open the store defensively (SQLite \(String(cString: sqlite3_errstr(hardened))))")
            sqlite3_close_v2(db)
            db = nil
            throw err
        }
        sqlite3_busy_timeout(db, busyTimeoutMs)
        mainFile = csqlite_main_file(db)
        openFile = OpenStoreFiles.add(fd: csqlite_main_fd(db))
    }

    /// A private in-memory database (to learn the schema's expected shape).
    init(inMemory: Void) throws(PasscodeError) {
        path = ":memory:"
        busyTimeoutMs = 0
        try Database.loadSQLite()
        let rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        if rc != SQLITE_OK { throw Database.error(rc, db, context: "cannot open a memory database") }
    }

    deinit {
        close()
        budget.deallocate()
    }

    func close() {
        // A connection whose -wal or -shm was deleted under it must not, as the last one to
        // close, copy its old log over the store file nor delete the files others use now.
        if db != nil && path != ":memory:" && logFilesMoved() != nil { _ = csqlite_no_checkpoint_on_close(db) }
        for (_, stmt) in statements { sqlite3_finalize(stmt) }
        statements.removeAll()
        mainFile = nil
        if db != nil { sqlite3_close_v2(db) }
        db = nil
        if let id = openFile { OpenStoreFiles.remove(id) }
        openFile = nil
    }

    /// Runs SQL with no parameters and no rows wanted (may hold several statements).
    func exec(_ sql: String) throws(PasscodeError) {
        try checkOpen()
        budget.pointee.calls = 0
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw Database.error(rc, db, context: "store query failed") }
    }

    /// Runs one statement and returns all its rows.
    @discardableResult
    func query(_ sql: String, _ args: [SQLValue] = []) throws(PasscodeError) -> [[SQLValue]] {
        let stmt = try prepare(sql)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        for (i, arg) in args.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch arg {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .int(let v): rc = sqlite3_bind_int64(stmt, idx, v)
            case .text(let v): rc = sqlite3_bind_text(stmt, idx, v, -1, csqlite_transient())
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(stmt, idx, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            if rc != SQLITE_OK { throw Database.error(rc, db, context: "store query failed") }
        }
        var rows: [[SQLValue]] = []
        budget.pointee.calls = 0
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw Database.error(rc, db, context: "store query failed") }
            let n = sqlite3_column_count(stmt)
            var row: [SQLValue] = []
            row.reserveCapacity(Int(n))
            for c in 0..<n {
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(stmt, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(stmt, c))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(stmt, c))
                    if count == 0 { row.append(.blob([])) } else {
                        let p = sqlite3_column_blob(stmt, c)!
                        row.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: count))))
                    }
                case SQLITE_NULL: row.append(.null)
                default: row.append(.int(sqlite3_column_int64(stmt, c)))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// The first column of the first row, if any.
    func scalar(_ sql: String, _ args: [SQLValue] = []) throws(PasscodeError) -> SQLValue? {
        try query(sql, args).first?.first
    }

    /// A truncating checkpoint: true when the whole log was copied into the file and emptied,
    /// false when another connection's snapshot kept part of it.
    func checkpointTruncate() throws(PasscodeError) -> Bool {
        try exclusive { () throws(PasscodeError) in try checkpointTruncateNow() }
    }

    private func checkpointTruncateNow() throws(PasscodeError) -> Bool {
        guard let row = try query("PRAGMA wal_checkpoint(TRUNCATE)").first, row.count == 3 else { return false }
        return row[0].int == 0 && row[1].int == row[2].int
    }

    /// Runs `body` in a write transaction (BEGIN IMMEDIATE: the write lock is taken first, so
    /// two writers never deadlock), under the writers' lock (`exclusive`). Any error rolls
    /// everything back.
    func write<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try exclusive { () throws(PasscodeError) in try transaction("BEGIN IMMEDIATE", body) }
    }

    /// Runs `body` holding the writers' lock (shim.h, "One writer at a time, on one log"),
    /// after checking that `<store>-wal` and `<store>-shm` still name the files this connection
    /// has open. When they do not (deleted or replaced while the store was open: another
    /// process may be using new ones), the connection is opened again first, with every check
    /// of a new open, so that it reads what the others wrote and writes where they read.
    /// Nested calls run inside the outer one's lock. Throws `busy` when another writer held the
    /// lock for longer than the busy timeout.
    func exclusive<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try enterExclusive()
        defer { leaveExclusive() }
        return try body()
    }

    /// The first half of `exclusive`, for a caller whose body takes its own locks in between.
    func enterExclusive() throws(PasscodeError) {
        try checkOpen()
        if exclusiveDepth > 0 {
            exclusiveDepth += 1
            return
        }
        for tries in 0..<2 {
            switch csqlite_writer_lock(db, busyTimeoutMs) {
            case 0: break
            case 1: throw PasscodeError.busy("the store stayed busy: another writer held it for longer than the busy timeout")
            default: throw PasscodeError.io("the store's writers' lock cannot be taken (flock failed on the store file)")
            }
            guard let moved = logFilesMoved() else {
                exclusiveDepth = 1
                return
            }
            csqlite_writer_unlock(db)
            if tries == 1 {
                throw PasscodeError.io("\(moved), and again after the store was opened again (another handle of this process keeps the old files): nothing was written; close every handle of the store and open it again")
            }
            try reopen(because: moved)
        }
    }

    /// After opening the store again failed (`reopen`), the handle has no connection: every
    /// use is refused, and the host closes it.
    private func checkOpen() throws(PasscodeError) {
        if db == nil && removed { throw PasscodeError.storeRemoved }
        if db == nil { throw PasscodeError.io("the store could not be opened again after its -wal or -shm file was deleted: close it and open it again") }
    }

    /// Whether `path` still names the store file this connection has open.
    func pathNamesOpenFile() -> Bool { csqlite_main_file_same(db, path) == 1 }

    /// Unlinks the files of a store whose removal was committed (`Storage.markRemoved`), under
    /// the writers' lock (inside `exclusive`), which every writer and every open of the file
    /// takes first. Only while `path` still names the file this connection has open (never a
    /// store made at the path since): its -wal, -shm and -journal first, so that a store made
    /// at the path afterwards never finds this one's log beside it, then the file. Connections
    /// still open on it keep their descriptors and answer `storeRemoved` (Schema.check).
    func unlinkStoreFiles() {
        guard db != nil, pathNamesOpenFile() else { return }
        for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
    }

    /// Closes the connection of a store removed through it; every later use answers `storeRemoved`.
    func closeRemoved() {
        removed = true
        close()
    }

    /// Whether the file this connection has open carries the removal marker (Schema.removedMarker).
    private func carriesRemovalMarker() -> Bool {
        (try? Schema.objects(of: self)) == Schema.removedObjects
    }

    /// The second half of `exclusive`.
    func leaveExclusive() {
        exclusiveDepth -= 1
        if exclusiveDepth == 0 { csqlite_writer_unlock(db) }
    }

    /// Why `<store>-wal` or `<store>-shm` no longer names the file this connection has open,
    /// or nil when both still do (or nothing is open yet).
    private func logFilesMoved() -> String? {
        var why = [CChar](repeating: 0, count: 512)
        return csqlite_log_files_moved(db, path, &logFiles, &why, why.count) == 0 ? nil : Database.string(why)
    }

    /// Closes the connection, whose log files were deleted or replaced, without letting it
    /// touch them (`close`), and opens the same store file again: new -wal and -shm files, or
    /// those another process made, checked as at any open. What this connection wrote to its
    /// old log and not yet to the store file is lost with that log (an attempt's record never
    /// is: it reaches the store file before the passcode is checked). A store file replaced
    /// meanwhile is not opened in its place.
    private func reopen(because moved: String) throws(PasscodeError) {
        guard csqlite_main_file_same(db, path) == 1 else {
            // The store was removed (passcode_store_remove): that answer, not an I/O error.
            if carriesRemovalMarker() { throw PasscodeError.storeRemoved }
            throw PasscodeError.io("\(moved), and the store file was replaced too: nothing was written; close the store and open it again")
        }
        close()
        logFiles = csqlite_log_ids()
        checkedSchemaCookie = nil
        let checks = openChecks
        schemaCheck = nil
        reopenings += 1
        try openConnection()
        try checks?(self)
    }

    /// Runs `body` in a read transaction, so that several reads see one snapshot.
    func read<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try transaction("BEGIN DEFERRED", body)
    }

    /// The store's change stamp now (the wal-index header, see `csqlite_change_stamp`): equal
    /// stamps at two moments mean no connection of any process committed in between. Nil while
    /// a commit is being written or when the file has no wal-index; then nothing may be assumed.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func changeStamp() -> ChangeStamp? {
        guard let mainFile else { return nil }  // set while the connection is open
        var stamp = ChangeStamp()
        let ok = withUnsafeMutableBytes(of: &stamp) { raw in
            csqlite_change_stamp(mainFile, raw.baseAddress!.assumingMemoryBound(to: UInt64.self))
        }
        stamp.connection = reopenings
        return ok == 1 ? stamp : nil
    }

    /// BEGIN and COMMIT are prepared once and kept, as every other statement.
    private func transaction<R>(_ begin: String, _ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R {
        try query(begin)
        do {
            try recheckSchema()
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(db) == 0 { _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Inside a transaction: when the schema cookie moved since `schemaCheck` last passed
    /// (another connection changed the schema: a migration, or a planted object), the check
    /// runs again before anything is read or written under the new schema.
    private func recheckSchema() throws(PasscodeError) {
        guard let schemaCheck else { return }
        let cookie = try schemaCookie()
        if cookie == checkedSchemaCookie { return }
        try schemaCheck(self)
        checkedSchemaCookie = cookie
    }

    /// The schema cookie (`PRAGMA schema_version`) of the transaction running.
    func schemaCookie() throws(PasscodeError) -> Int64? { try scalar("PRAGMA schema_version")?.int }

    /// Records that the check `schemaCheck` makes passed under `cookie`, in a transaction of
    /// this connection (the open's first snapshot, `Storage.checkAndMigrate`): the next
    /// transaction checks again only when the cookie moved since, as every later one does.
    func schemaChecked(cookie: Int64?) { checkedSchemaCookie = cookie }

    /// Runs `schemaCheck` now (at open) and remembers the cookie it passed under; not again when
    /// it passed under the cookie the store has now (`schemaChecked`).
    func checkSchemaNow() throws(PasscodeError) {
        try read {}  // the transaction runs the check
    }

    private func prepare(_ sql: String) throws(PasscodeError) -> OpaquePointer {
        try checkOpen()
        if let s = statements[sql] { return s }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let s = stmt else { throw Database.error(rc, db, context: "store query failed") }
        statements[sql] = s
        return s
    }

    /// The checking VFS's last refusal on this thread (shim.h), if any; forgets it.
    static func refusal() -> String? {
        var text = [CChar](repeating: 0, count: 512)
        csqlite_take_refusal(&text, text.count)
        return text[0] == 0 ? nil : Database.string(text)
    }

    /// The -shm file this connection mapped must be ours, as the files the VFS checks are
    /// (`csqlite_check_shm`); nothing is mapped before the store is in WAL mode.
    func checkSharedMemory() throws(PasscodeError) {
        // Only once the connection has its log open: asking for the mapping before would map
        // the -shm for a connection that may never open its log (journal_mode=WAL failing on a
        // full disk), and SQLite would never unmap it (a descriptor and memory lost).
        guard try scalar("PRAGMA journal_mode")?.text == "wal" else { return }
        var why = [CChar](repeating: 0, count: 512)
        if csqlite_check_shm(db, path + "-shm", &logFiles, &why, why.count) != 0 {
            throw PasscodeError.permission("the store's shm file: \(Database.string(why))")
        }
    }

    /// A NUL-terminated C buffer as text.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How the message of the error a value over the length limit gives starts (`isTooBig`).
    /// (`hasPrefix`, not `contains`: String.contains(String) would link Swift's regex library in.)
    static let tooBigPrefix = "the store holds a value over "

    /// Whether `error` is the one a value over the connection's length limit gives: an edit of
    /// the file, which the integrity check counts as tampering rather than failing on.
    static func isTooBig(_ error: PasscodeError) -> Bool {
        if case .corrupt(let message) = error { return message.hasPrefix(tooBigPrefix) }
        return false
    }

    /// Every table's text and blob columns: a row with a value over the length limit cannot be
    /// read, so `purgeOversizedRows` deletes it.
    private static let valueColumns = [
        ("passcode", ["verifier"]), ("recovery", ["wrap"]), ("settings", ["key", "value"]), ("state", ["key", "value"]),
        ("reset_code", ["salt", "hash", "boot_id"]), ("reset_request", ["boot_id"]),
        ("event", ["detail"]), ("session", ["device_name", "platform", "location"]),
    ]

    /// Deletes every row holding a value over the lowered length limit (inside the caller's
    /// write transaction), with the limit raised to SQLite's own while it measures them. Used
    /// only by the paths that end a detected edit (a reset, deleting the account), so that a
    /// store with such a value can still be recovered. Returns the number of rows deleted.
    @discardableResult
    func purgeOversizedRows() throws(PasscodeError) -> Int {
        let lowered = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32.max)
        defer { sqlite3_limit(db, SQLITE_LIMIT_LENGTH, lowered) }
        var deleted = 0
        for (table, columns) in Database.valueColumns {
            let test = columns.map { "length(CAST(\($0) AS BLOB)) > \(lowered)" }.joined(separator: " OR ")
            try query("DELETE FROM \(table) WHERE \(test)")
            deleted += Int(sqlite3_changes(db))
        }
        return deleted
    }

    /// SQLite, taken at the first store opened (CSQLite's loader.c says from where, and why it is
    /// not linked): PASSCODE_ERR_IO when there is none to use, naming what is missing.
    static func loadSQLite() throws(PasscodeError) {
        var why = [CChar](repeating: 0, count: 400)
        if csqlite_load(&why, why.count) == 1 { return }
        throw .io(why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// Maps a SQLite result code to a `PasscodeError`. The SQLite message is kept: it never
    /// holds a secret, since secrets are never part of SQL text (they are not stored at all).
    static func error(_ rc: Int32, _ db: OpaquePointer?, context: String) -> PasscodeError {
        if let refused = refusal() { return .permission("the store's files: \(refused)") }
        let detail = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        let text = "\(context): \(detail)"
        switch rc & 0xff {
        case SQLITE_FULL: return .full("the disk is full: \(detail)")
        case SQLITE_READONLY: return .readOnly("the store is read-only: \(detail)")
        case SQLITE_CORRUPT: return .corrupt("the store file is corrupt: \(detail)")
        case SQLITE_NOTADB: return .notAStore("the file is not a libpasscode store: \(detail)")
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy("the store stayed busy: \(detail)")
        case SQLITE_NOMEM: return .outOfMemory(text)
        case SQLITE_PERM, SQLITE_AUTH: return .permission(text)
        case SQLITE_CANTOPEN: return .io(text)
        // libpasscode's SQL is fixed: an SQL error means the file's tables were damaged.
        case SQLITE_ERROR, SQLITE_SCHEMA, SQLITE_MISMATCH, SQLITE_CONSTRAINT, SQLITE_RANGE:
            return .corrupt("the store's tables are damaged: \(detail)")
        // A value longer than the connection's lowered length limit (see csqlite_harden):
        // libpasscode never writes one, so the file was edited.
        case SQLITE_TOOBIG:
            return .corrupt("\(Database.tooBigPrefix)\(Int(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1))) bytes, more than libpasscode ever writes (\(context)): the file is damaged or hostile")
        case SQLITE_INTERRUPT:
            return .corrupt("a store query ran past its bound (\(Int(CSQLITE_PROGRESS_OPS) * Int(CSQLITE_PROGRESS_CALLS)) SQLite steps): the file is damaged or hostile")
        case SQLITE_IOERR: return .io("the store could not be read or written: \(detail)")
        default: return .internalError(text)
        }
    }
}

extension Database {
    /// rename(from, to) that fails with EEXIST instead of replacing `to` (renameat2 with
    /// RENAME_NOREPLACE, through the shim: glibc declares it only under _GNU_SOURCE). Here
    /// because this file is the one that imports the shim (FileSystem.linkStoreFile uses it).
    static func renameNoReplace(_ from: String, _ to: String) -> Int32 { csqlite_rename_noreplace(from, to) }
}

/// The store files this process has open through SQLite, by device and inode. Opening and
/// closing a descriptor of our own on such a file would drop every POSIX lock SQLite holds on
/// it in this process (shim.h, csqlite_stat_is_ours), so the check that a path is a
/// libpasscode store before SQLite sees it (`FileSystem.looksLikeStore`, which reads the
/// file's header) is skipped for a file this process already opened as one.
enum OpenStoreFiles {
    struct ID: Hashable { let device: UInt64, inode: UInt64 }
    private static let lock = Mutex()
    nonisolated(unsafe) private static var counts: [ID: Int] = [:]

    /// Records the file open on `fd` (SQLite's descriptor); nil when it cannot be examined.
    static func add(fd: Int32) -> ID? {
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0 else { return nil }
        let id = ID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        lock.withLock { counts[id, default: 0] += 1 }
        return id
    }

    static func remove(_ id: ID) {
        lock.withLock {
            if let n = counts[id], n > 1 { counts[id] = n - 1 } else { counts[id] = nil }
        }
    }

    /// Whether the file `path` names is open as a store in this process now.
    static func contains(path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        let id = ID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        return lock.withLock { counts[id] != nil }
    }
}
