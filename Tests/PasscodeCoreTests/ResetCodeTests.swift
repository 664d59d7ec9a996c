import XCTest
@testable import PasscodeCore

final class Mailbox: @unchecked Sendable {
    private let lock = Mutex()
    private var codes: [String] = []
    var failWith: String?
    var notices: [Int32] = []
    var logouts: [Int32] = []
    func deliver(_ code: SecretBytes) -> String? {
        lock.withLock {
            if let failWith { return failWith }
            codes.append(code.withBytes { String(decoding: $0, as: UTF8.self) })
            return nil
        }
    }
    var last: String? { lock.withLock { codes.last } }
    var count: Int { lock.withLock { codes.count } }
}

func attach(_ store: PasscodeStore, _ box: Mailbox) {
    store.updateHooks {
        $0.deliverResetCode = { box.deliver($0) }
        $0.notify = { n in box.notices.append(n) }
        $0.logout = { r in box.logouts.append(r) }
    }
}

final class ResetCodeTests: XCTestCase {
    let clock = TestClock()
    let mail = Mailbox()

    func store() throws -> PasscodeStore {
        let (s, _) = try makeStore(clock: clock)
        try s.setPasscode(secret(good1))
        attach(s, mail)
        return s
    }

    func testCodeIsEightRandomDigitsAndWorksOnce() throws {
        let s = try store()
        try s.requestResetCode()
        let code = try XCTUnwrap(mail.last)
        XCTAssertEqual(code.count, 8)
        XCTAssertTrue(code.allSatisfy { $0.isNumber })
        try s.completeReset(code: secret(code), newPasscode: secret(good2))
        XCTAssertEqual(mail.notices, [Notice.passcodeReset.rawValue])
        XCTAssertNoThrow(try s.verify(secret(good2)))
        XCTAssertThrowsPasscodeError(.noResetCode, try s.completeReset(code: secret(code), newPasscode: secret(good3)))
    }

    func testCodesDifferBetweenRequests() throws {
        let s = try store()
        try s.set(.resetRequestIntervalSeconds, to: 0)
        try s.set(.resetRequestsPerDay, to: 100)
        var seen = Set<String>()
        for _ in 0..<20 { try s.requestResetCode(); seen.insert(mail.last!) }
        XCTAssertGreaterThan(seen.count, 15)
    }

    func testOnlyAnArgon2idHashAtThePasscodesCostIsStored() throws {
        let (s, path) = try makeStore(clock: clock)
        attach(s, mail)
        try s.setPasscode(secret(good1))
        try s.requestResetCode()
        let code = try XCTUnwrap(mail.last)
        let db = try Database(path: path, busyTimeoutMs: 1000)
        let row = try XCTUnwrap(try db.query("SELECT salt, hash FROM reset_code").first)
        XCTAssertEqual(row[0].blob?.count, 0, "Argon2id strings carry their own salt")
        let hash = String(decoding: try XCTUnwrap(row[1].blob), as: UTF8.self)
        let passcodeHash = try XCTUnwrap(try db.scalar("SELECT verifier FROM passcode")?.text)
        XCTAssertTrue(hash.hasPrefix("$argon2id$v=19$"))
        XCTAssertTrue(passcodeHash.hasPrefix("$pcwrap$v=1$argon2id,"))
        // The same parameters as the passcode's wrap: a guess at the code costs what a guess at the passcode does.
        let m = hash.split(separator: "$")[2]  // "m=<KiB>,t=<passes>,p=1"
        let w = passcodeHash.split(separator: "$")[2].split(separator: ",")  // "argon2id", "ops=<passes>", "mem=<bytes>"
        let kib = Int(m.split(separator: ",")[0].dropFirst(2))!, passes = m.split(separator: ",")[1].dropFirst(2)
        XCTAssertEqual("ops=\(passes)", String(w[1]))
        XCTAssertEqual("mem=\(kib * 1024)", String(w[2]))
        XCTAssertFalse(try db.query("SELECT * FROM reset_code").description.contains(code))
    }

    func testExpiresAfterFifteenMinutes() throws {
        let s = try store()
        try s.requestResetCode()
        let code = try XCTUnwrap(mail.last)
        clock.advance(seconds: 899)
        XCTAssertNoThrow(try s.checkResetCode(secret(code)))
        clock.advance(seconds: 1)
        XCTAssertThrowsPasscodeError(.resetCodeExpired, try s.checkResetCode(secret(code)))
    }

    func testRateLimitedToOneAMinuteAndFiveADay() throws {
        let s = try store()
        try s.requestResetCode()
        XCTAssertThrowsPasscodeError(.rateLimited(seconds: 60), try s.requestResetCode())
        clock.advance(seconds: 30)
        XCTAssertThrowsPasscodeError(.rateLimited(seconds: 30), try s.requestResetCode())
        for _ in 0..<4 { clock.advance(seconds: 61); try s.requestResetCode() }
        clock.advance(seconds: 61)
        guard case .rateLimited(let wait)? = (Result { try s.requestResetCode() }.error as? PasscodeError) else {
            return XCTFail("the sixth request in a day must be refused")
        }
        XCTAssertGreaterThan(wait, 80_000)
        clock.advance(seconds: wait)
        XCTAssertNoThrow(try s.requestResetCode())
    }

    func testFiveWrongTriesDiscardTheCode() throws {
        let s = try store()
        try s.requestResetCode()
        let code = try XCTUnwrap(mail.last)
        let wrong = code == "00000000" ? "11111111" : "00000000"
        for left in (1...4).reversed() {
            XCTAssertThrowsPasscodeError(.wrongResetCode(triesLeft: left), try s.checkResetCode(secret(wrong)))
        }
        XCTAssertThrowsPasscodeError(.wrongResetCode(triesLeft: 0), try s.checkResetCode(secret(wrong)))
        XCTAssertThrowsPasscodeError(.noResetCode, try s.checkResetCode(secret(code)))
        XCTAssertEqual(try s.failedAttempts(), 0, "reset-code tries never count against the passcode")
    }

    func testANewRequestReplacesTheOldCode() throws {
        let s = try store()
        try s.requestResetCode()
        let old = try XCTUnwrap(mail.last)
        clock.advance(seconds: 61)
        try s.requestResetCode()
        let new = try XCTUnwrap(mail.last)
        XCTAssertNotEqual(old, new)
        // A replaced code is gone: checking it is a wrong try against the new one, never an oracle.
        XCTAssertThrowsPasscodeError(.wrongResetCode(triesLeft: 4), try s.checkResetCode(secret(old)))
        XCTAssertNoThrow(try s.checkResetCode(secret(new)))
    }

    func testFailedDeliveryDiscardsTheCodeAndReportsTheHost() throws {
        let s = try store()
        mail.failWith = "SMTP server unreachable"
        XCTAssertThrowsPasscodeError(.hookFailed("SMTP server unreachable"), try s.requestResetCode())
        XCTAssertFalse(try s.isResetCodePending())
    }

    func testResetWorksDuringLockoutAndClearsIt() throws {
        let s = try store()
        for i in 0..<10 { _ = try? s.verify(secret("90000\(i)")); clock.advance(seconds: 3600) }
        XCTAssertTrue(try s.isResetRequired())
        XCTAssertThrowsPasscodeError(.resetRequired, try s.verify(secret(good1)))
        try s.requestResetCode()
        try s.completeReset(code: secret(mail.last!), newPasscode: secret(good2))
        XCTAssertFalse(try s.isResetRequired())
        XCTAssertEqual(try s.failedAttempts(), 0)
        XCTAssertNoThrow(try s.verify(secret(good2)))
    }

    func testWeakNewPasscodeIsRefusedAndKeepsTheCode() throws {
        let s = try store()
        try s.requestResetCode()
        let code = try XCTUnwrap(mail.last)
        XCTAssertThrowsError(try s.completeReset(code: secret(code), newPasscode: secret("111111")))
        XCTAssertNoThrow(try s.completeReset(code: secret(code), newPasscode: secret(good3)))
    }

    func testForgotPasscodeRemovesItAndLogsOut() throws {
        let s = try store()
        try s.requestResetCode()
        try s.report(.lockNow)
        try s.forgotPasscode()
        XCTAssertFalse(try s.isPasscodeSet())
        XCTAssertEqual(try s.lockStatus(), LockStatus(locked: true, reason: .loggedOut), "logged out until set up again")
        XCTAssertFalse(try s.isResetCodePending())
        XCTAssertEqual(mail.logouts, [2])
    }

    /// The lifecycle hook runs with no lock held: another handle removes the passcode and sets a
    /// new one meanwhile. Forgot then acts on the passcode it was asked about, which is gone: it
    /// answers `state`, and the new passcode stays.
    func testForgotHeldByItsHookLeavesAPasscodeSetMeanwhile() throws {
        let unchangedPasscode = "the passcode was set or changed by another handle or process during this call; nothing changed"
        let (s, path) = try makeStore(clock: clock)
        try s.setPasscode(secret(good1))
        attach(s, mail)
        let other = try reopen(path, clock: clock)
        s.updateHooks {
            $0.lifecycle = { _ in
                try? other.removePasscode(current: secret(good1))
                try? other.setPasscode(secret(good2))
                return nil
            }
        }
        XCTAssertThrowsPasscodeError(.state(unchangedPasscode), try s.forgotPasscode())
        XCTAssertTrue(try s.isPasscodeSet())
        XCTAssertNoThrow(try s.verify(secret(good2)))
        XCTAssertEqual(mail.logouts, [], "nothing went: no logout")
        // The login store's forgot (a reset required, the PIN kept) the same way.
        s.updateHooks {
            $0.lifecycle = { _ in
                try? other.removePasscode(current: secret(good2))
                try? other.setPasscode(secret(good3))
                return nil
            }
        }
        XCTAssertThrowsPasscodeError(.state(unchangedPasscode), try s.requireReset())
        XCTAssertNoThrow(try s.verify(secret(good3)))
        // Nothing set behind it: it goes on.
        s.updateHooks { $0.lifecycle = { _ in nil } }
        try s.forgotPasscode()
        XCTAssertFalse(try s.isPasscodeSet())
    }
}

extension Result where Failure == Error {
    var error: Error? { if case .failure(let e) = self { return e } else { return nil } }
}
