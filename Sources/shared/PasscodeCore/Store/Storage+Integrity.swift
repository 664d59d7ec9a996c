// What the integrity MAC covers (Integrity.swift), read in a fixed, canonical order (the storage
// layer, Storage.swift). The bytes a MAC covers are part of the file format: a change here makes
// every sealed store read as tampered.

extension Storage {
    /// Each table's rows as the MAC of `version` and later reads them, the table's name first,
    /// in this order. Version 1 (0.6 and older) covered the passcode, recovery, settings, state
    /// and reset-code rows; version 2 also the reset requests, the event log and the device
    /// sessions, i.e. every table (`Schema.tables`; a test holds them equal).
    static let securityQueries: [(table: String, sinceVersion: Int, sql: String)] = [
        ("passcode", 1, "SELECT 'passcode', id, verifier, length, set_wall_ms FROM passcode ORDER BY id"),
        ("recovery", 1, "SELECT 'recovery', id, wrap FROM recovery ORDER BY id"),
        ("settings", 1, "SELECT 'settings', key, value FROM settings ORDER BY key"),
        ("state", 1, "SELECT 'state', key, value FROM state WHERE key <> '\(StateKey.integrityMac.rawValue)' ORDER BY key"),
        ("reset_code", 1, "SELECT 'reset_code', generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms, tries, replaced FROM reset_code ORDER BY generation"),
        ("reset_request", 2, "SELECT 'reset_request', rowid, boot_id, boot_ms, wall_ms, failed FROM reset_request ORDER BY rowid"),
        ("event", 2, "SELECT 'event', id, wall_ms, kind, detail FROM event ORDER BY id"),
        ("session", 2, "SELECT 'session', id, device_name, platform, last_active_wall_ms, location, is_current FROM session ORDER BY id"),
    ]

    /// Every row the MAC of `version` covers, in a fixed order, without the MAC's own row.
    func securityRows(version: Int) throws(PasscodeError) -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        for query in Storage.securityQueries where query.sinceVersion <= version { rows += try database.query(query.sql) }
        return rows
    }

    /// The reset code and reset request rows, in a fixed order (the reset rows' own MAC).
    func resetRows() throws(PasscodeError) -> [[SQLValue]] {
        try database.query("SELECT generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms, tries, replaced FROM reset_code ORDER BY generation")
            + database.query("SELECT rowid, boot_id, boot_ms, wall_ms, failed FROM reset_request ORDER BY rowid")
    }
}
