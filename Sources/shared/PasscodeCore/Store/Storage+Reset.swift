// The reset code and reset request rows (the storage layer, Storage.swift).

/// The pending reset code's row, checked as data.
struct ResetCodeRow {
    /// A code takes this many tries at most (a correct one gives its try back).
    static let maxTries: Int64 = 5

    let generation: Int64
    let hash: String
    let bootID: Int64
    let expiresBootMs: Int64
    let expiresWallMs: Int64
    let tries: Int64

    init(_ row: [SQLValue]) throws(PasscodeError) {
        guard let generation = row[0].int, let bytes = row[1].blob, let bootID = row[2].int,
              let expires = row[3].int, let tries = row[4].int, let expiresWall = row[5].int else {
            throw PasscodeError.corrupt("the store's reset code row is damaged")
        }
        let hash = String(decoding: bytes, as: UTF8.self)
        guard hash.hasPrefix("$argon2id$"), bytes.count < Sodium.hashStringBytes, !bytes.contains(0),
              (0...ResetCodeRow.maxTries).contains(tries), (0...maxClockMs).contains(expires),
              ClockReading.wallRange.contains(expiresWall) else {
            throw PasscodeError.corrupt("the store's reset code row is damaged or out of range")
        }
        (self.generation, self.hash, self.bootID, self.expiresBootMs, self.expiresWallMs, self.tries) =
            (generation, hash, bootID, expires, expiresWall, tries)
    }
}

/// One recorded reset-code request.
struct ResetRequestRow {
    let rowid: SQLValue
    let bootID: UInt64
    let bootMs: Int64
    let wallMs: Int64
}

extension Storage {
    /// The pending code, if any (the newest row; there is never more than one).
    func resetCode() throws(PasscodeError) -> ResetCodeRow? {
        guard let row = try database.query("SELECT generation, hash, boot_id, expires_boot_ms, tries, expires_wall_ms FROM reset_code ORDER BY generation DESC LIMIT 1").first else {
            return nil
        }
        return try ResetCodeRow(row)
    }

    /// Replaces any pending code with a new one, stored as its hash; returns its generation.
    func replaceResetCode(hash: String, bootID: UInt64, expiresBootMs: Int64, expiresWallMs: Int64) throws(PasscodeError) -> Int64 {
        let generation = (try database.scalar("SELECT max(generation) FROM reset_code")?.int ?? 0) &+ 1
        try deleteResetCodes()
        try database.query("""
            INSERT INTO reset_code(generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms)
            VALUES(?, x'', ?, ?, ?, ?)
            """, [.int(generation), .blob(Array(hash.utf8)), .int(Int64(bitPattern: bootID)),
                  .int(expiresBootMs), .int(expiresWallMs)])
        return generation
    }

    func deleteResetCodes() throws(PasscodeError) { try database.query("DELETE FROM reset_code") }

    func deleteResetCode(generation: Int64) throws(PasscodeError) {
        try database.query("DELETE FROM reset_code WHERE generation = ?", [.int(generation)])
    }

    /// Counts a try of the code `generation` (before its answer is known).
    func takeResetTry(generation: Int64) throws(PasscodeError) {
        try database.query("UPDATE reset_code SET tries = tries + 1 WHERE generation = ?", [.int(generation)])
    }

    /// Gives a try back (a correct code).
    func giveBackResetTry(generation: Int64) throws(PasscodeError) {
        try database.query("UPDATE reset_code SET tries = max(tries - 1, 0) WHERE generation = ?", [.int(generation)])
    }

    /// Records a request; returns its row id.
    func addResetRequest(bootID: UInt64, bootMs: Int64, wallMs: Int64) throws(PasscodeError) -> Int64 {
        try database.query("INSERT INTO reset_request(boot_id, boot_ms, wall_ms) VALUES(?, ?, ?)",
                           [.int(Int64(bitPattern: bootID)), .int(bootMs), .int(wallMs)])
        return database.lastInsertRowID
    }

    /// Marks a request whose code could not be delivered.
    func markResetRequestFailed(_ rowid: Int64) throws(PasscodeError) {
        try database.query("UPDATE reset_request SET failed = 1 WHERE rowid = ?", [.int(rowid)])
    }

    /// Every recorded request.
    func resetRequests() throws(PasscodeError) -> [ResetRequestRow] {
        try database.query("SELECT rowid, boot_id, boot_ms, wall_ms FROM reset_request").map {
            ResetRequestRow(rowid: $0[0], bootID: UInt64(bitPattern: $0[1].int ?? 0), bootMs: $0[2].int ?? 0, wallMs: $0[3].int ?? 0)
        }
    }

    func deleteResetRequests() throws(PasscodeError) { try database.query("DELETE FROM reset_request") }

    func deleteResetRequest(_ request: ResetRequestRow) throws(PasscodeError) {
        try database.query("DELETE FROM reset_request WHERE rowid = ?", [request.rowid])
    }
}
