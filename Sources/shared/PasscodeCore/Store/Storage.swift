// The storage layer: the one owner of the store file's SQL and of every row name. The features
// above it (Features/) ask for typed records and named changes; none of them writes SQL or
// names a row. `Database` (SQLite.swift) is the connection underneath; `Schema` the tables.
//
// Every method but `open` runs inside the caller's transaction (`read` or `write`), under the
// handle's lock.

/// The rows of the `state` table that are not part of a `StateRecord`: each is read and written
/// by one part of the store, through `stateValue`, `putState`, `addState` and `deleteState`.
enum StateKey: String, CaseIterable {
    /// The MAC over the security state (Integrity.swift); not itself covered by it.
    case integrityMac = "integrity_mac"
    /// The keyed hash that says which pepper the store was set up with.
    case pepperCheck = "pepper_check"
    /// A random id, so that a sealed state cannot be moved to another store.
    case storeID = "store_id"
    /// The MAC's format version (none: 0.6 and older).
    case integrityVersion = "integrity_version"
    /// The reset rows' own MAC.
    case resetMac = "reset_mac"
    /// A wipe of the write-ahead log that another connection held up (PasscodeStore+Account.swift).
    case wipePending = "wipe_pending"
    /// Service mode: the confirmed address passcoded mails reset codes to, an address waiting
    /// for its confirmation code, that code's salt and keyed hash, its expiry (wall clock, ms)
    /// and tries (PasscodeStore+Recipient.swift).
    case recipient = "reset_recipient"
    case recipientPending = "reset_recipient_pending"
    case recipientCode = "reset_recipient_code"
    case recipientCodeExpiresWallMs = "reset_recipient_code_expires_wall_ms"
    case recipientCodeTries = "reset_recipient_code_tries"
}

/// The passcode row: the stored verifier text (for conditional updates and for tagging wrong
/// guesses) and the passcode's length.
struct PasscodeRow {
    let text: String
    let length: Int
}

final class Storage {
    /// The connection. Only the storage layer (this folder) and tests use it directly.
    let database: Database

    private init(_ database: Database) {
        self.database = database
    }

    /// libsqlite3.so.0, loaded before anything of a store is made or opened (`Database.loadSQLite`).
    static func loadSQLite() throws(PasscodeError) { try Database.loadSQLite() }

    /// Closes the connection now (the store built under a temporary name, before its link).
    func close() { database.close() }

    /// Opens the store file at `path` (which exists: `FileSystem.prepareStoreFile`), checks that
    /// it is ours, sets the connection up and runs pending migrations.
    ///
    /// A store removed while this open ran (`markRemoved`: the file it opened carries the removal
    /// marker, or `path` no longer names it) is `storeRemoved`; then `makeAgain` (nil: none) makes
    /// the store at `path` again and it is opened anew, twice at most.
    static func open(path: String, busyTimeoutMs: Int32, makeAgain: (() throws(PasscodeError) -> Void)? = nil) throws(PasscodeError) -> Storage {
        var tries = 0
        while true {
            let db = try Database(path: path, busyTimeoutMs: busyTimeoutMs)
            do {
                try checkAndMigrate(db, reopening: false)
            } catch PasscodeError.storeRemoved where makeAgain != nil && tries < 2 {
                db.close()
                tries += 1
                try makeAgain?()
                continue
            }
            // A reopen (after -wal/-shm were replaced) checks the same.
            db.openChecks = { (p0) throws(PasscodeError) in try checkAndMigrate(p0, reopening: true) }
            return Storage(db)
        }
    }

    /// Validates the file as ours, sets the connection up, and runs pending migrations.
    /// `reopening`: the handle's store had our schema when it was opened, so a file with no
    /// schema at all now (truncated under it) is not set up again: only a new open may judge
    /// it (`checkPepperAtOpen`), and this handle is refused.
    private static func checkAndMigrate(_ db: Database, reopening: Bool) throws(PasscodeError) {
        // Under the writers' lock: no other process's write and checkpoint, made through -wal
        // and -shm files deleted since (this connection will not see them), reaches the store
        // file while this one reads it into its page cache.
        try db.exclusive { () throws(PasscodeError) in try checkAndMigrateLocked(db, reopening: reopening) }
    }

    private static func checkAndMigrateLocked(_ db: Database, reopening: Bool) throws(PasscodeError) {
        // Under the writers' lock, which a removal holds until the store's files are unlinked:
        // a path that no longer names the file opened was removed (or replaced) meanwhile.
        guard db.pathNamesOpenFile() else { throw PasscodeError.storeRemoved }
        do {
            try checkAndMigrateChecked(db, reopening: reopening)
        } catch PasscodeError.storeRemoved {
            // The file carries the removal marker: a removal cut short (the process that removed
            // it was killed before its files went) is finished here.
            db.unlinkStoreFiles()
            throw PasscodeError.storeRemoved
        }
    }

    private static func checkAndMigrateChecked(_ db: Database, reopening: Bool) throws(PasscodeError) {
        // Read-only checks first, in one snapshot: nothing is written to a file that is not ours.
        let (version, cookie): (Int, Int64?) = try db.read { () throws(PasscodeError) in
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
            if reopening && version == 0 {
                throw PasscodeError.tampered
            }
            if version < 0 {  // the header's user_version is four bytes of the file: input too
                throw PasscodeError.corrupt("the store's schema version (\(version)) is damaged")
            }
            // The schema is input too: it must be the one the version says, before any write
            // (journal_mode=WAL below writes the header). Every later transaction checks again
            // when another connection changed the schema (SQLite.swift, recheckSchema).
            try Schema.check(db, version: version)
            return (version, try db.schemaCookie())
        }
        try db.checkSharedMemory()  // when the file was in WAL mode already: the -shm just read
        try db.exec("PRAGMA journal_mode=WAL")
        try db.exec("PRAGMA synchronous=FULL")
        try db.exec("PRAGMA secure_delete=ON")
        if version < Schema.currentVersion {
            try db.write { () throws(PasscodeError) in
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
        db.schemaCheck = { (p0) throws(PasscodeError) in try Schema.check(p0, version: Schema.currentVersion) }
        // With no migration, the check above was today's schema's, under the writers' lock: it
        // is made again below only if the schema changed since (the cookie moved).
        if version == Schema.currentVersion { db.schemaChecked(cookie: cookie) }
        try db.checkSchemaNow()
        try db.checkSharedMemory()
    }

    // MARK: - Transactions and the file

    /// Runs `body` in a write transaction (see `Database.write`).
    func write<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R { try database.write(body) }

    /// Runs `body` in a read transaction (see `Database.read`).
    func read<R>(_ body: () throws(PasscodeError) -> R) throws(PasscodeError) -> R { try database.read(body) }

    /// The store's change stamp now (see `Database.changeStamp`).
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func changeStamp() -> ChangeStamp? { database.changeStamp() }

    /// A truncating checkpoint (see `Database.checkpointTruncate`).
    func checkpointTruncate() throws(PasscodeError) -> Bool { try database.checkpointTruncate() }

    /// Holds the writers' lock from `enterExclusive` to `leaveExclusive` (see `Database.exclusive`),
    /// across several transactions: an attempt's record and the checkpoint that puts it in the file.
    func enterExclusive() throws(PasscodeError) { try database.enterExclusive() }
    func leaveExclusive() { database.leaveExclusive() }

    /// Rebuilds the file, so that deleted pages are gone from it (fails while another
    /// connection reads; secure_delete has zeroed the pages anyway).
    func vacuum() throws(PasscodeError) { try database.exclusive { () throws(PasscodeError) in try database.exec("VACUUM") } }

    /// Deletes every row holding a value over the length limit (see `Database.purgeOversizedRows`).
    func purgeOversizedRows() throws(PasscodeError) -> Int { try database.purgeOversizedRows() }

    /// Whether `error` is the one a value over the length limit gives (see `Database.isTooBig`):
    /// an edit of the file, which the integrity check counts as tampering rather than failing on.
    static func isTooBig(_ error: PasscodeError) -> Bool { Database.isTooBig(error) }

    /// The schema version the file records.
    func schemaVersion() throws(PasscodeError) -> SQLValue { try database.scalar("PRAGMA user_version") ?? .null }

    /// Whether the last UPDATE changed a row.
    private func changedRows() throws(PasscodeError) -> Bool { try database.scalar("SELECT changes()")?.int ?? 0 > 0 }

    /// Removes the store (inside the caller's write transaction): every row is deleted
    /// (secure_delete zeroes them) and every table dropped, and the removal marker
    /// (`Schema.removedMarker`) is the whole schema left, so that every other connection on the
    /// file answers `storeRemoved` from its next transaction. The files go after the commit
    /// (`unlinkStoreFiles`).
    func markRemoved() throws(PasscodeError) {
        try deleteEveryRow()
        for table in Schema.tables { try database.exec("DROP TABLE \(table)") }
        try database.exec(Schema.removedMarker)
    }

    /// Unlinks the removed store's files (see `Database.unlinkStoreFiles`), under the writers' lock.
    func unlinkStoreFiles() { database.unlinkStoreFiles() }

    /// This connection's store was removed through it: the connection is closed, and every later
    /// use answers `storeRemoved`.
    func closeRemoved() { database.closeRemoved() }

    /// Empties every table: the account's data goes, the schema stays.
    func deleteEveryRow() throws(PasscodeError) {
        for table in Schema.tables { try database.query("DELETE FROM \(table)") }
    }

    // MARK: - Key-value rows (settings and state)

    private func keyValue(_ table: KeyValueTable, _ key: String) throws(PasscodeError) -> SQLValue? {
        try database.scalar("SELECT value FROM \(table.rawValue) WHERE key = ?", [.text(key)])
    }

    /// The one upsert of a key-value row.
    private func putKeyValue(_ table: KeyValueTable, _ key: String, _ value: SQLValue) throws(PasscodeError) {
        try database.query("INSERT INTO \(table.rawValue)(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           [.text(key), value])
    }

    private enum KeyValueTable: String { case settings, state }

    /// The stored value of the setting row `key`, nil when none is stored.
    func setting(_ key: String) throws(PasscodeError) -> SQLValue? { try keyValue(.settings, key) }

    /// Deletes every setting row: each reads as its default again (the custom lockout table goes too).
    func deleteAllSettings() throws(PasscodeError) { try database.query("DELETE FROM settings") }

    /// Deletes the setting row `key`: it reads as its default again.
    func deleteSetting(_ key: String) throws(PasscodeError) { try database.query("DELETE FROM settings WHERE key = ?", [.text(key)]) }

    /// Stores the setting row `key`.
    func putSetting(_ key: String, _ value: SQLValue) throws(PasscodeError) { try putKeyValue(.settings, key, value) }

    /// The value of a one-off state row, nil when none is stored.
    func stateValue(_ key: StateKey) throws(PasscodeError) -> SQLValue? { try keyValue(.state, key.rawValue) }

    /// Whether a one-off state row is stored (without reading its value).
    func hasState(_ key: StateKey) throws(PasscodeError) -> Bool {
        try database.scalar("SELECT 1 FROM state WHERE key = ?", [.text(key.rawValue)]) != nil
    }

    /// Whether the state table holds no row at all.
    func stateIsEmpty() throws(PasscodeError) -> Bool {
        try database.scalar("SELECT 1 FROM state LIMIT 1") == nil
    }

    /// Stores a one-off state row, replacing its value.
    func putState(_ key: StateKey, _ value: SQLValue) throws(PasscodeError) { try putKeyValue(.state, key.rawValue, value) }

    /// Adds a one-off state row that must not exist yet (a row that does is damage: `corrupt`).
    func addState(_ key: StateKey, _ value: SQLValue) throws(PasscodeError) {
        try database.query("INSERT INTO state(key, value) VALUES(?, ?)", [.text(key.rawValue), value])
    }

    func deleteState(_ key: StateKey) throws(PasscodeError) { try deleteStateRow(key.rawValue) }

    private func deleteStateRow(_ key: String) throws(PasscodeError) {
        try database.query("DELETE FROM state WHERE key = ?", [.text(key)])
    }

    /// Reads a record; rows that are not there keep the record's initial values.
    func load<R: StateRecord>(_: R.Type) throws(PasscodeError) -> R {
        var record = R()
        let keys = R.fields.map { "'\($0.key)'" }.joined(separator: ",")
        for row in try database.query("SELECT key, value FROM state WHERE key IN (\(keys))") {
            guard let key = row[0].text, let field = R.fields.first(where: { $0.key == key }) else { continue }
            guard let v = row[1].int, field.range.contains(v) else {
                throw PasscodeError.corrupt("the store's state \(key) has a value outside its range")
            }
            field.set(&record, v)
        }
        return record
    }

    /// Deletes a record's rows: it reads as its defaults again.
    func delete<R: StateRecord>(_: R.Type) throws(PasscodeError) {
        for field in R.fields { try deleteStateRow(field.key) }
    }

    /// Writes the fields of `record` that differ from `old`.
    func save<R: StateRecord>(_ record: R, over old: R) throws(PasscodeError) {
        for field in R.fields where field.get(record) != field.get(old) {
            try putKeyValue(.state, field.key, .int(field.get(record)))
        }
    }

    // MARK: - The passcode row

    /// The stored passcode, checked as data: a length outside 4-12 or an empty or overlong
    /// verifier is damage; the verifier itself is parsed (PasscodeStore+DataKey.swift) only where it is used.
    func passcode() throws(PasscodeError) -> PasscodeRow? {
        guard let row = try database.query("SELECT verifier, length FROM passcode").first else { return nil }
        guard let text = row[0].text, !text.isEmpty, text.utf8.count <= 4096,
              let n = row[1].int, (Int64(PasscodePolicy.minLength)...Int64(PasscodePolicy.maxLength)).contains(n) else {
            throw PasscodeError.corrupt("the store's passcode row is damaged or out of range")
        }
        return PasscodeRow(text: text, length: Int(n))
    }

    /// Whether a passcode row exists, read raw: the reset is the way out of a damaged state.
    func passcodeExists() throws(PasscodeError) -> Bool {
        try database.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0
    }

    /// Adds the passcode row (there is none: a row that exists is damage, `corrupt`).
    func insertPasscode(verifier: String, length: Int, setWallMs: Int64) throws(PasscodeError) {
        try database.query("INSERT INTO passcode(id, verifier, length, set_wall_ms) VALUES(1, ?, ?, ?)",
                           [.text(verifier), .int(Int64(length)), .int(setWallMs)])
    }

    /// Writes the passcode row, whatever was there (a reset).
    func replacePasscode(verifier: String, length: Int, setWallMs: Int64) throws(PasscodeError) {
        try database.query("INSERT OR REPLACE INTO passcode(id, verifier, length, set_wall_ms) VALUES(1, ?, ?, ?)",
                           [.text(verifier), .int(Int64(length)), .int(setWallMs)])
    }

    /// Replaces the verifier, and the time the passcode was set when `setWallMs` is given.
    /// Throws `noPasscode` when there is no passcode row.
    func updateVerifier(_ verifier: String, setWallMs: Int64? = nil) throws(PasscodeError) {
        if let setWallMs {
            try database.query("UPDATE passcode SET verifier = ?, set_wall_ms = ? WHERE id = 1", [.text(verifier), .int(setWallMs)])
        } else {
            try database.query("UPDATE passcode SET verifier = ? WHERE id = 1", [.text(verifier)])
        }
        if try !changedRows() { throw PasscodeError.noPasscode }
    }

    /// Replaces the verifier only while it is still `old`; returns whether it did.
    func updateVerifier(_ verifier: String, ifStill old: String) throws(PasscodeError) -> Bool {
        try database.query("UPDATE passcode SET verifier = ? WHERE id = 1 AND verifier = ?", [.text(verifier), .text(old)])
        return try changedRows()
    }

    func deletePasscode() throws(PasscodeError) { try database.query("DELETE FROM passcode") }

    // MARK: - The recovery wrap

    /// The data key wrapped under the host's recovery key, if any (checked: `sealedBytes` long).
    func recoveryWrap(sealedBytes: Int) throws(PasscodeError) -> [UInt8]? {
        guard let row = try database.query("SELECT wrap FROM recovery").first else { return nil }
        guard let blob = row[0].blob, blob.count == sealedBytes else {
            throw PasscodeError.corrupt("the store's recovery wrap is damaged")
        }
        return blob
    }

    func putRecoveryWrap(_ blob: [UInt8]) throws(PasscodeError) {
        try database.query("INSERT OR REPLACE INTO recovery(id, wrap) VALUES(1, ?)", [.blob(blob)])
    }

    func deleteRecoveryWrap() throws(PasscodeError) { try database.query("DELETE FROM recovery") }
}
