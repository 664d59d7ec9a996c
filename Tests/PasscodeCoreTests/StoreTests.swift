import Glibc
import XCTest
@testable import PasscodeCore

final class StoreTests: XCTestCase {
    let clock = TestClock()

    func testPasscodeSurvivesReopen() throws {
        let (store, path) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        let again = try reopen(path, clock: clock)
        XCTAssertTrue(try again.isPasscodeSet())
        XCTAssertThrowsPasscodeError(.wrongPasscode, try again.verify(secret(good2)))
        XCTAssertNoThrow(try again.verify(secret(good1)))
    }

    func testALockoutFromBeforeARebootStartsAgainOnceRecordedAndRunsDown() throws {
        let (store, path) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        for n in 0..<5 { XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret("90000\(n)"))) }
        XCTAssertEqual(try store.nextLockout(), NextLockout(failuresLeft: 1, delaySeconds: 300, requiresReset: false))
        clock.advance(seconds: 30)
        XCTAssertEqual(try store.lockoutRemainingSeconds(), 30)
        XCTAssertFalse(try store.lockoutRestartDue())
        clock.reboot()
        // Every reading says the whole delay until the restart is recorded...
        XCTAssertTrue(try store.lockoutRestartDue())
        clock.advance(seconds: 59)
        XCTAssertEqual(try store.lockoutRemainingSeconds(), 60)
        try store.recordLockoutRestart()
        XCTAssertFalse(try reopen(path, clock: clock).lockoutRestartDue())
        // ...from which it runs down, and the next wrong passcode starts the next, longer delay.
        clock.advance(seconds: 59)
        XCTAssertEqual(try reopen(path, clock: clock).lockoutRemainingSeconds(), 1)
        clock.advance(seconds: 1)
        XCTAssertEqual(try store.lockoutRemainingSeconds(), 0)
        XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret("900009")))
        XCTAssertEqual(try store.lockoutRemainingSeconds(), 300)
        XCTAssertEqual(try store.failedAttempts(), 6)
    }

    func testWriteAheadCountsTheAttemptBeforeTheAnswer() throws {
        let (store, path) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        // A second handle sees the attempt counted even by a verify that ends in failure...
        XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret(good2)))
        XCTAssertEqual(try reopen(path, clock: clock).failedAttempts(), 1)
        // ...and the right passcode clears it.
        try store.verify(secret(good1))
        XCTAssertEqual(try reopen(path, clock: clock).failedAttempts(), 0)
    }

    func testConcurrentFailuresOnOneHandleAreCountedExactly() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        try store.setCustomSchedule(delays: [0], maxFailures: 0)
        let threads = 16, each = 3
        let wrong = Counter()
        DispatchLikeGroup.run(threads) { t in
            for i in 0..<each {
                let guess = "7" + format2(t) + format3(i)
                do { try store.verify(secret(guess)) } catch PasscodeError.wrongPasscode { wrong.add() } catch {}
            }
        }
        XCTAssertEqual(wrong.value, threads * each)
        XCTAssertEqual(try store.failedAttempts(), threads * each)
    }

    func testMigratesAVersionOneStoreForward() throws {
        let dir = makeTempDir()
        let path = dir + "/v1.db"
        close(open(path, O_CREAT | O_RDWR, 0o600))
        let db = try Database(path: path, busyTimeoutMs: 1000)
        try db.exec(Schema.migrations[0])
        try db.exec("PRAGMA application_id=\(Schema.applicationID); PRAGMA user_version=1")
        try db.query("INSERT INTO passcode VALUES(1, 'x', 6, 0)")
        db.close()
        let store = try reopen(path, clock: clock)
        XCTAssertTrue(try store.isPasscodeSet())
        let check = try Database(path: path, busyTimeoutMs: 1000)
        XCTAssertEqual(try check.scalar("PRAGMA user_version")?.int, Int64(Schema.currentVersion))
        XCTAssertEqual(try check.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'session'")?.int, 1)
    }

    func testDisableKeepsTheHashAndEnableNeedsNoPasscode() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        try store.disable(current: secret(good1))
        XCTAssertFalse(try store.isLockEnabled())
        XCTAssertTrue(try store.isPasscodeSet())
        try store.enable()
        XCTAssertTrue(try store.isLockEnabled())
        XCTAssertNoThrow(try store.verify(secret(good1)))
    }

    func testPepperedHashNeedsThePepper() throws {
        let pepper = SecretBytes([UInt8](repeating: 9, count: 32))
        let (store, path) = try makeStore(clock: clock, pepper: pepper)
        try store.setPasscode(secret(good1))
        XCTAssertNoThrow(try store.verify(secret(good1)))
        XCTAssertThrowsError(try reopen(path, clock: clock)) { error in
            guard case PasscodeError.wrongPepper = error else { return XCTFail("\(error)") }
        }
    }
}

/// Runs `count` threads and waits for them (no Foundation, no Dispatch needed).
enum DispatchLikeGroup {
    final class Box: @unchecked Sendable {
        let body: (Int) -> Void
        let index: Int
        init(_ body: @escaping (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
    }

    static func run(_ count: Int, _ body: @escaping (Int) -> Void) {
        var threads: [pthread_t] = []
        for i in 0..<count {
            var t = pthread_t()
            let box = Unmanaged.passRetained(Box(body, i)).toOpaque()
            pthread_create(&t, nil, { arg in
                let b = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
                b.body(b.index)
                return nil
            }, box)
            threads.append(t)
        }
        for t in threads { pthread_join(t, nil) }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = Mutex()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}

func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n % 100)" }
func format3(_ n: Int) -> String { n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n % 1000)" }
