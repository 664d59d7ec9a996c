import Glibc
import XCTest
@testable import PasscodeCore

/// The store file is attacker input: the connection's own defences.
final class HostileFileTests: XCTestCase {
    private func freshFile() -> String {
        let path = makeTempDir() + "/raw.db"
        close(open(path, O_CREAT | O_RDWR, 0o600))
        return path
    }

    /// A statement that never ends (here a recursive CTE; in a file, a view, trigger or index
    /// expression) is interrupted by the progress handler after its bound, as `corrupt`.
    func testAnEndlessStatementIsInterrupted() throws {
        let db = try Database(path: freshFile(), busyTimeoutMs: 1000)
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        do {
            _ = try db.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
            XCTFail("an endless statement returned")
        } catch let PasscodeError.corrupt(message) {
            XCTAssertTrue(message.contains("past its bound"), message)
        }
        clock_gettime(CLOCK_MONOTONIC, &end)
        let ms = (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1_000_000
        XCTAssertLessThan(ms, 5000)
        // The budget is per statement: the next one runs.
        XCTAssertEqual(try db.scalar("SELECT 1")?.int, 1)
    }

    /// Triggers and views do not run on our connections, writable_schema cannot be used, and
    /// the limits are lowered.
    func testTheConnectionIsDefensive() throws {
        let path = freshFile()
        let db = try Database(path: path, busyTimeoutMs: 1000)
        try db.exec("CREATE TABLE t(x); CREATE TABLE log(x)")
        try db.exec("CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES(NEW.x); END")
        try db.query("INSERT INTO t VALUES(1)")
        XCTAssertEqual(try db.scalar("SELECT count(*) FROM log")?.int, 0)  // the trigger did not fire
        try db.exec("CREATE VIEW v AS SELECT 1")
        XCTAssertThrowsError(try db.query("SELECT * FROM v"))  // views are off
        try db.exec("PRAGMA writable_schema=ON")
        XCTAssertThrowsError(try db.exec("UPDATE sqlite_master SET sql = 'x' WHERE name = 't'"))
        XCTAssertEqual(try db.scalar("PRAGMA trusted_schema")?.int, 0)
        XCTAssertThrowsError(try db.query("SELECT zeroblob(2000000)"))  // over SQLITE_LIMIT_LENGTH
    }

    /// The schema of every version the library opens equals what the migrations make, and the
    /// fixtures made by older releases (v2, v3) pass the check of their own version.
    func testOlderReleasesStoresPassTheSchemaCheck() throws {
        let here = URLlessDirectory(of: #filePath)
        for (name, version) in [("store-v2.db", 2), ("store-v3.db", 3), ("store-v3-pepper.db", 3)] {
            let copy = makeTempDir() + "/" + name
            XCTAssertEqual(system("cp '\(here)/../fixtures/\(name)' '\(copy)' && chmod 600 '\(copy)'"), 0)
            let db = try Database(path: copy, busyTimeoutMs: 1000)
            XCTAssertEqual(try db.scalar("PRAGMA user_version")?.int, Int64(version))
            XCTAssertNoThrow(try Schema.check(db, version: version), name)
            XCTAssertThrowsError(try Schema.check(db, version: version == 3 ? 2 : 3), name)
        }
    }

    /// A hot rollback journal built from another database: copied while that database's
    /// transaction is open (synchronous=OFF, so its header counts its records), it holds that
    /// database's pages, and replaying it onto `victim` writes them there.
    private func plantHotJournal(onto victim: String, from dir: String) throws {
        let other = dir + "/other.db"
        close(open(other, O_CREAT | O_RDWR, 0o600))
        let a = try Database(path: other, busyTimeoutMs: 1000)
        try a.exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF; CREATE TABLE t(x); INSERT INTO t VALUES('attacker')")
        try a.exec("BEGIN; UPDATE t SET x = 'changed'")
        XCTAssertEqual(system("cp '\(other)-journal' '\(victim)-journal'"), 0)
        try a.exec("ROLLBACK")
        a.close()
    }

    private func victimStore(in dir: String) throws -> String {
        let path = dir + "/victim.db"
        close(open(path, O_CREAT | O_RDWR, 0o600))
        let v = try Database(path: path, busyTimeoutMs: 1000)
        try v.exec("PRAGMA journal_mode=DELETE; CREATE TABLE t(x); INSERT INTO t VALUES('victim')")
        v.close()
        return path
    }

    /// A hot journal that is not ours (group/other may write it, or another user owns it) is
    /// refused on the descriptor SQLite opened, never replayed; the same journal when ours is
    /// replayed (the control: the planted journal is a real one).
    func testAHotJournalNotOursIsRefusedNeverReplayed() throws {
        var cases: [(String, (String) -> String)] = [("0666", { "chmod 666 '\($0)'" }), ("ours", { "chmod 600 '\($0)'" })]
        if geteuid() == 0 { cases.insert(("another user's", { "chown 12345 '\($0)' && chmod 600 '\($0)'" }), at: 1) } else {
            print("HostileFileTests: NOT RUN as non-root: the journal owned by another uid (needs chown); CI runs as root")
        }
        for (what, command) in cases {
            let dir = makeTempDir()
            let victim = try victimStore(in: dir)
            try plantHotJournal(onto: victim, from: dir)
            XCTAssertEqual(system(command(victim + "-journal")), 0)
            let db = try Database(path: victim, busyTimeoutMs: 1000)
            if what == "ours" {
                XCTAssertEqual(try db.scalar("SELECT x FROM t")?.text, "attacker", "the control: the planted journal is replayed")
                continue
            }
            do {
                let x = try db.scalar("SELECT x FROM t")
                XCTFail("a \(what) hot journal was read through: \(String(describing: x))")
            } catch let PasscodeError.permission(message) {
                XCTAssertTrue(message.contains("never replayed"), message)
            }
            db.close()
            XCTAssertEqual(system("cp '\(victim)' '\(dir)/check.db' && sqlite3 '\(dir)/check.db' 'SELECT x FROM t' | grep -qx victim"), 0,
                           "the store kept its own content")
        }
    }

    private func URLlessDirectory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return String(file[..<slash])
    }
}
