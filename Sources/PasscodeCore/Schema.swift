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
    ]

    static var currentVersion: Int { migrations.count }
}
