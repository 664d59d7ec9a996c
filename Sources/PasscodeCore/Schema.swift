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
        // 3 -> 4: the passcode verifier wraps the data key ("$pcwrap$v=1$...", DataKey.swift); a
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

    /// Every table's columns as the migrations make them, e.g. "passcode(id INTEGER,hash TEXT,...)".
    /// Built once, from an in-memory database, so it can never disagree with the migrations.
    static let expectedShape: [String] = {
        guard let memory = try? Database(inMemory: ()) else { return [] }
        for m in migrations { try? memory.exec(m) }
        return (try? shape(of: memory)) ?? []
    }()

    /// The tables and columns of `db`, sorted, for comparison with `expectedShape`.
    static func shape(of db: Database) throws -> [String] {
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0.first?.text }
        return try tables.map { t in
            let cols = try db.query("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(t)])
                .map { "\($0[0].text ?? "") \($0[1].text ?? "") \($0[2].int ?? 0) \($0[3].int ?? 0)" }
            return "\(t)(\(cols.joined(separator: ",")))"
        }
    }
}
