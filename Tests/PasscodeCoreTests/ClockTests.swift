import XCTest
@testable import PasscodeCore

/// Time that cannot be cheated: wall-clock jumps of a day and a year, both ways, during a
/// lockout and in the background; reboots during a lockout. Lockouts are never shorter and
/// never endless; the auto-lock is never skipped.
final class ClockTests: XCTestCase {
    let jumps: [Int64] = [86400, -86400, 365 * 86400, -365 * 86400]

    func lockedOut(_ clock: TestClock) throws -> PasscodeStore {
        let (s, _) = try makeStore(clock: clock)
        try s.setPasscode(secret(good1))
        for i in 0..<6 {  // the 5th failure: 1 minute; the 6th: 5 minutes
            if i == 5 { clock.advance(seconds: 60) }
            XCTAssertThrowsPasscodeError(.wrongPasscode, try s.verify(secret("90000\(i)")))
        }
        XCTAssertEqual(try s.lockoutRemainingSeconds(), 300)
        return s
    }

    func testWallClockJumpsNeitherShortenNorExtendALockout() throws {
        for jump in jumps {
            let clock = TestClock()
            let s = try lockedOut(clock)
            clock.advance(seconds: 100)
            clock.jumpWall(seconds: jump)
            XCTAssertEqual(try s.lockoutRemainingSeconds(), 200, "wall jump \(jump)")
            XCTAssertThrowsPasscodeError(.lockedOut(seconds: 200), try s.verify(secret(good1)))
            clock.advance(seconds: 199)
            XCTAssertEqual(try s.lockoutRemainingSeconds(), 1, "never shorter (jump \(jump))")
            clock.advance(seconds: 1)
            XCTAssertEqual(try s.lockoutRemainingSeconds(), 0, "never endless (jump \(jump))")
            XCTAssertNoThrow(try s.verify(secret(good1)))
        }
    }

    /// The auto-lock counts by both clocks, the longer: a wall clock set back never
    /// skips it, one set forward past the timeout locks (the safe side, as a lockout never shortens).
    func testWallClockJumpsNeverSkipTheAutoLockAndAForwardOneLocks() throws {
        for jump in jumps {
            let clock = TestClock()
            let (s, _) = try makeStore(clock: clock)
            try s.setPasscode(secret(good1))
            try s.set(.autoLockSeconds, to: 300)
            try s.report(.background)
            clock.jumpWall(seconds: jump)
            clock.advance(seconds: 299)
            XCTAssertEqual(try s.report(.foreground).locked, jump >= 1, "jump \(jump): the longer clock decides")
            if jump >= 1 { try s.verify(secret(good1)) }
            try s.report(.background)
            clock.jumpWall(seconds: -jump)
            clock.advance(seconds: 300)
            XCTAssertTrue(try s.report(.foreground).locked, "jump \(jump) must not skip the lock")
        }
    }

    func testRebootDuringLockoutRestartsItInFullOnce() throws {
        let clock = TestClock()
        let s = try lockedOut(clock)
        clock.advance(seconds: 250)
        XCTAssertEqual(try s.lockoutRemainingSeconds(), 50)
        clock.reboot()
        XCTAssertEqual(try s.lockoutRemainingSeconds(), 300, "after a reboot the lockout starts again in full")
        XCTAssertThrowsPasscodeError(.lockedOut(seconds: 300), try s.verify(secret(good1)))
        clock.advance(seconds: 120)
        XCTAssertEqual(try s.lockoutRemainingSeconds(), 180, "and then runs down: never endless")
        clock.advance(seconds: 180)
        XCTAssertNoThrow(try s.verify(secret(good1)))
    }

    func testABootClockBeforeTheLockoutStartIsNeverTakenAsTimePassed() throws {
        let clock = TestClock()
        let s = try lockedOut(clock)
        clock.advance(ms: -120_000)  // a host clock that went backwards
        XCTAssertEqual(try s.lockoutRemainingSeconds(), 300)
        XCTAssertThrowsPasscodeError(.lockedOut(seconds: 300), try s.verify(secret(good1)))
        clock.advance(seconds: 300)
        XCTAssertNoThrow(try s.verify(secret(good1)))
    }

    /// Readings outside the stated range are refused, at the one place a reading enters.
    func testReadingsOutsideTheRangeAreRefused() throws {
        let inRange: [(Int64, Int64)] = [(0, 0), (1, -1), (maxClockMs, maxClockMs), (0, -maxClockMs)]
        let outOfRange: [(Int64, Int64)] = [(-1, 0), (maxClockMs + 1, 0), (Int64.max, 0), (Int64.min, 0),
                                            (0, maxClockMs + 1), (0, -maxClockMs - 1), (0, Int64.max), (0, Int64.min)]
        for (b, w) in inRange {
            XCTAssertNoThrow(try ClockReading(bootMs: b, wallMs: w, bootID: 1).checked(), "\(b) \(w)")
        }
        for (b, w) in outOfRange {
            XCTAssertThrowsError(try ClockReading(bootMs: b, wallMs: w, bootID: 1).checked(), "\(b) \(w)") { error in
                guard case PasscodeError.clockOutOfRange = error else { return XCTFail("\(error)") }
            }
        }
    }
}
