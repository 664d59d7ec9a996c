// The store's schema and its forward migrations. A store records its version in
// `PRAGMA user_version` and is marked as ours by `PRAGMA application_id`.

enum Schema {
    /// 'PSCD': marks a SQLite file as a libpasscode store.
    static let applicationID: Int64 = 0x5053_4344

    /// Migration i takes a store from version i to version i+1. Append only.
    static let migrations: [String] = [
        // 0 -> 1: passcode, settings and lock state.
        """
        CREATE TABLE passcode(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            hash TEXT NOT NULL,
            length INTEGER NOT NULL,
            set_wall_ms INTEGER NOT NULL);
        CREATE TABLE settings(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;
        CREATE TABLE state(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;
        """,
        // 1 -> 2: reset codes and device sessions.
        """
        CREATE TABLE reset_code(
            generation INTEGER PRIMARY KEY,
            salt BLOB NOT NULL,
            hash BLOB NOT NULL,
            boot_id INTEGER NOT NULL,
            expires_boot_ms INTEGER NOT NULL,
            expires_wall_ms INTEGER NOT NULL,
            tries INTEGER NOT NULL DEFAULT 0,
            replaced INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE reset_request(boot_id INTEGER NOT NULL, boot_ms INTEGER NOT NULL, wall_ms INTEGER NOT NULL);
        CREATE TABLE session(
            id TEXT PRIMARY KEY,
            device_name TEXT NOT NULL,
            platform TEXT NOT NULL,
            last_active_wall_ms INTEGER NOT NULL,
            location TEXT,
            is_current INTEGER NOT NULL DEFAULT 0);
        """,
        // 2 -> 3: the security event log (bounded: the newest 1,000 events of the last 90 days).
        """
        CREATE TABLE event(
            id INTEGER PRIMARY KEY,
            wall_ms INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            detail TEXT NOT NULL DEFAULT '');
        """,
        // 3 -> 4: the passcode verifier wraps the data key ("$pcwrap$v=1$...", Crypto/KeyWrap.swift); a
        // "$argon2id$" hash from before is replaced at the next successful verify. A second copy
        // of the key may be wrapped under the host's recovery key. A reset request whose delivery
        // failed is marked, so that it does not count against the daily limit.
        """
        ALTER TABLE passcode RENAME COLUMN hash TO verifier;
        CREATE TABLE recovery(id INTEGER PRIMARY KEY CHECK (id = 1), wrap BLOB NOT NULL);
        ALTER TABLE reset_request ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
        """,
    ]

    static var currentVersion: Int { migrations.count }

    /// Every table of the current schema (deleting the account empties them all).
    static let tables = ["passcode", "recovery", "settings", "state", "reset_code", "reset_request", "session", "event"]

    /// The whole schema of a removed store (`Storage.markRemoved`): its tables dropped and this
    /// one table made in their place, in the transaction before its files are unlinked. Every
    /// connection still open on the file sees the schema cookie move and learns it here
    /// (`check`: `storeRemoved`), so none goes on writing to a file no path names.
    static let removedMarker = "CREATE TABLE removed_store(id INTEGER PRIMARY KEY)"
    static let removedObjects = ["table removed_store on removed_store: \(removedMarker)"]

    /// Every object of `sqlite_master` (tables, their automatic indexes) of a store of each
    /// version 0...currentVersion, as "type name on tbl_name: sql", sorted. Built once from
    /// in-memory databases by the migrations themselves, so it can never disagree with them.
    static let expectedObjects: [[String]] = (0...migrations.count).map { version in
        guard let memory = try? Database(inMemory: ()) else { return ["(no memory database)"] }
        for m in migrations[0..<version] { try? memory.exec(m) }
        return (try? objects(of: memory)) ?? ["(unreadable)"]
    }

    /// The objects of `db`'s `sqlite_master`, in the form of `expectedObjects`.
    static func objects(of db: Database) throws(PasscodeError) -> [String] {
        try db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name, tbl_name, sql").map { row in
            let sql: String
            switch row[3] {
            case .null: sql = "(none)"
            case .text(let t): sql = t
            default: sql = "(not text)"
            }
            return "\(row[0].text ?? "?") \(row[1].text ?? "?") on \(row[2].text ?? "?"): \(sql)"
        }
    }

    /// Refuses a store whose `sqlite_master` is not, object by object and SQL text by SQL
    /// text, the schema of `version` (today's, or one the migrations start from): a trigger, a
    /// view, an index, a table or a column libpasscode never made, or a changed type, is
    /// `foreignSchema`, found before anything is written.
    static func check(_ db: Database, version: Int) throws(PasscodeError) {
        guard (0...currentVersion).contains(version) else {
            throw PasscodeError.corrupt("the store's schema version (\(version)) is damaged")
        }
        let found = try objects(of: db)
        if found == removedObjects { throw PasscodeError.storeRemoved }
        let expected = expectedObjects[version]
        if found == expected { return try checkRootPages(db, version: version) }
        let extra = found.filter { !expected.contains($0) }
        let missing = expected.filter { !found.contains($0) }
        func short(_ s: String) -> String { s.count <= 80 ? s : String(s.prefix(77)) + "..." }
        var why: [String] = []
        if let e = extra.first { why.append("\(extra.count) object(s) no libpasscode makes, e.g. \(short(e))") }
        if let m = missing.first { why.append("\(missing.count) object(s) of schema version \(version) missing or changed, e.g. \(short(m))") }
        if why.isEmpty { why.append("the objects are in another order") }
        throw PasscodeError.foreignSchema("the store's schema is not one libpasscode made (version \(version)): \(why.joined(separator: "; ")); refusing it before any write")
    }

    /// The SQL text of `sqlite_master` says nothing about where each table's b-tree is: its
    /// `rootpage` is one more value of the file. Two objects on one page, or one on page 1
    /// (`sqlite_master` itself) or past the end, are refused; and since two tables of the same
    /// shape can swap pages unseen by SQLite (settings and state: both `key TEXT PRIMARY KEY,
    /// value`), their rows must also be of their table: no setting in `state` and no state row
    /// in `settings`. (Values of the wrong type in other tables are found where they are read:
    /// `corrupt`, naming the row.) Run at open and whenever the schema cookie moves (`keysQuery`).
    static func checkRootPages(_ db: Database, version: Int) throws(PasscodeError) {
        let pages = try db.scalar("PRAGMA page_count")?.int ?? 0
        var seen: Set<Int64> = []
        for row in try db.query("SELECT name, rootpage FROM sqlite_master WHERE type IN ('table', 'index')") {
            let name = row[0].text ?? "?"
            guard let root = row[1].int, root >= 2, root <= max(pages, 2), seen.insert(root).inserted else {
                throw PasscodeError.foreignSchema("the store's schema puts \(name) on a page no libpasscode store has it on (rootpage \(row[1].int.map(String.init) ?? "?")); refusing it before any write")
            }
        }
        guard version >= 1 else { return }
        for row in try db.query(keysQuery) {
            guard row.count == 2, let key = row[1].text else { continue }  // `key IN (...)` of text: no other value matches
            let inSettings = row[0].int == 0
            if inSettings ? stateRowKeys.contains(key) : settingKeys.contains(key) { throw misplaced(inSettings ? "settings" : "state") }
        }
    }

    /// Every key of `settings` (0) and of `state` (1), settings first: both tables hold a few
    /// dozen rows, which are compared with the sets below in memory. (A `count(*) ... WHERE key
    /// IN (...)` over the same lists cost SQLite about 430,000 instructions to prepare at every
    /// open, a quarter of an open's cost; this statement prepares and runs in a tenth of that.)
    static let keysQuery = "SELECT 0, key FROM settings UNION ALL SELECT 1, key FROM state"
    static let settingKeys: Set<String> = Set(Setting.allCases.map { $0.key })
    static let stateRowKeys: Set<String> = Set(StateKey.rowNames)

    private static func misplaced(_ table: String) -> PasscodeError {
        .foreignSchema("the store's table \(table) holds rows of another table (its rootpage in sqlite_master was changed, or rows were moved); refusing it before any write")
    }
}
