import XCTest
@testable import PasscodeCore

/// The test-case tables for the entry flows (create/change/number pad, turning off
/// disable, 003 unlock, 002 reset), driven key by key as a front end would.
final class FlowTests: XCTestCase {
    let clock = TestClock()
    let mail = Mailbox()

    func type(_ flow: PasscodeFlow, _ digits: String) throws {
        for c in digits { try flow.append(digit: Int(String(c))!) }
    }

    func newStore(passcode: String? = good1) throws -> PasscodeStore {
        let (s, _) = try makeStore(clock: clock)
        if let passcode { try s.setPasscode(secret(passcode)) }
        attach(s, mail)
        return s
    }

    // 001 case 1: create, enter and confirm: success.
    func testCreateSucceeds() throws {
        let s = try newStore(passcode: nil)
        let f = try PasscodeFlow(store: s, kind: .create)
        XCTAssertEqual(f.prompt, "Enter a passcode")
        try type(f, good1)
        XCTAssertEqual(f.step, .confirmNew)
        XCTAssertEqual(f.prompt, "Confirm passcode")
        try type(f, good1)
        XCTAssertEqual(f.result, .success)
        XCTAssertNoThrow(try s.verify(secret(good1)))
    }

    // 001 case 2: mismatch: shake, error, back to step 1.
    func testCreateMismatchGoesBackToTheFirstStep() throws {
        let s = try newStore(passcode: nil)
        let f = try PasscodeFlow(store: s, kind: .create)
        try type(f, good1)
        try type(f, good2)
        XCTAssertEqual(f.step, .enterNew)
        XCTAssertEqual(f.errorText, "Passcodes don't match. Try again.")
        XCTAssertEqual(f.shakes, 1)
        XCTAssertFalse(try s.isPasscodeSet())
    }

    func testCreateRefusesAWeakPasscodeWithTheReason() throws {
        let s = try newStore(passcode: nil)
        let f = try PasscodeFlow(store: s, kind: .create)
        try type(f, "123456")
        XCTAssertEqual(f.step, .enterNew)
        XCTAssertTrue(f.errorText.hasPrefix("Choose a harder passcode"))
        XCTAssertFalse(f.errorText.contains("123456"))
        XCTAssertEqual(f.shakes, 1)
    }

    // 001 case 3 and 000 case 3: cancel leaves everything as it was.
    func testCancelAtEachStepChangesNothing() throws {
        let s = try newStore(passcode: nil)
        let f = try PasscodeFlow(store: s, kind: .create)
        try type(f, good1)
        f.cancel()
        XCTAssertEqual(f.result, .cancelled)
        XCTAssertFalse(try s.isPasscodeSet())
        XCTAssertThrowsPasscodeError(.state("the flow takes no digits now"), try f.append(digit: 1))
        try s.setPasscode(secret(good1))
        let c = try PasscodeFlow(store: s, kind: .change)
        try type(c, good1)
        try type(c, good2)
        c.cancel()
        XCTAssertNoThrow(try s.verify(secret(good1)))
        let d = try PasscodeFlow(store: s, kind: .disable)
        try type(d, "386")
        d.cancel()
        XCTAssertTrue(try s.isLockEnabled())
    }

    // 001 case 4: change with the right current passcode.
    func testChangeSucceeds() throws {
        let s = try newStore()
        let f = try PasscodeFlow(store: s, kind: .change)
        XCTAssertEqual(f.prompt, "Enter current passcode")
        try type(f, good1)
        XCTAssertEqual(f.prompt, "Enter new passcode")
        try type(f, good2)
        XCTAssertEqual(f.prompt, "Confirm new passcode")
        try type(f, good2)
        XCTAssertEqual(f.result, .success)
        XCTAssertNoThrow(try s.verify(secret(good2)))
    }

    // 001 case 5: wrong current: shake, "Incorrect passcode", stays, and counts.
    func testChangeWithWrongCurrentStaysAndCounts() throws {
        let s = try newStore()
        let f = try PasscodeFlow(store: s, kind: .change)
        try type(f, good2)
        XCTAssertEqual(f.step, .enterCurrent)
        XCTAssertEqual(f.errorText, "Incorrect passcode")
        XCTAssertEqual(f.shakes, 1)
        XCTAssertEqual(try s.failedAttempts(), 1)
    }

    func testChangeMismatchGoesBackToNew() throws {
        let s = try newStore()
        let f = try PasscodeFlow(store: s, kind: .change)
        try type(f, good1)
        try type(f, good2)
        try type(f, good3)
        XCTAssertEqual(f.step, .enterNew)
        XCTAssertEqual(f.errorText, "Passcodes don't match. Try again.")
    }

    // 001 cases 6-8: dots fill, delete unfills, auto-submit, no 7th digit.
    func testNumberPad() throws {
        let s = try newStore()
        let f = try PasscodeFlow(store: s, kind: .unlock)
        try type(f, "38")
        XCTAssertEqual(f.filled, 2)
        f.deleteLast()
        XCTAssertEqual(f.filled, 1)
        f.deleteLast(); f.deleteLast()
        XCTAssertEqual(f.filled, 0)
        try type(f, good1)
        XCTAssertEqual(f.result, .success)
        XCTAssertThrowsPasscodeError(.state("the flow takes no digits now"), try f.append(digit: 7))
        XCTAssertThrowsPasscodeError(.misuse("a digit must be 0 to 9"), try PasscodeFlow(store: s, kind: .unlock).append(digit: 10))
    }

    // 003 cases 4-6 with lockout: wrong entries shake and clear; the 5th shows the countdown.
    func testUnlockWrongThenLockout() throws {
        let s = try newStore()
        try s.report(.lockNow)
        let f = try PasscodeFlow(store: s, kind: .unlock)
        for i in 0..<4 {
            try type(f, "90000\(i)")
            XCTAssertEqual(f.errorText, "Incorrect passcode")
            XCTAssertEqual(f.filled, 0)
            XCTAssertEqual(f.shakes, i + 1)
        }
        try type(f, "900009")
        XCTAssertEqual(f.step, .lockedOut)
        XCTAssertEqual(f.result, .lockedOut)
        XCTAssertEqual(try f.lockoutSeconds(), 60)
        XCTAssertTrue(f.errorText.contains("60 seconds"))
        XCTAssertThrowsError(try f.append(digit: 3))
        clock.advance(seconds: 60)
        try f.refresh()
        XCTAssertEqual(f.step, .enterPasscode)
        try type(f, good1)
        XCTAssertEqual(f.result, .success)
        XCTAssertFalse(try s.lockStatus().locked)
    }

    func testUnlockReachesNeedsReset() throws {
        let s = try newStore()
        try s.setCustomSchedule(delays: [0], maxFailures: 2)
        let f = try PasscodeFlow(store: s, kind: .unlock)
        try type(f, "900001")
        try type(f, "900002")
        XCTAssertEqual(f.result, .needsReset)
        XCTAssertEqual(f.step, .finished)
    }

    // 000 cases 8 and 9: disable with the right passcode turns the lock off; a wrong one shakes.
    func testDisableFlow() throws {
        let s = try newStore()
        let f = try PasscodeFlow(store: s, kind: .disable)
        XCTAssertEqual(f.prompt, "Enter passcode to disable")
        try type(f, good2)
        XCTAssertEqual(f.errorText, "Incorrect passcode")
        XCTAssertTrue(try s.isLockEnabled())
        try type(f, good1)
        XCTAssertEqual(f.result, .success)
        XCTAssertFalse(try s.isLockEnabled())
        XCTAssertTrue(try s.isPasscodeSet())
    }

    // 002 case 10: reset from settings: code, new, confirm.
    func testResetFlow() throws {
        let s = try newStore()
        try s.requestResetCode()
        let f = try PasscodeFlow(store: s, kind: .reset)
        XCTAssertEqual(f.length, 8)
        XCTAssertEqual(f.prompt, "Enter the code from the email")
        let code = try XCTUnwrap(mail.last)
        let wrong = code == "00000000" ? "11111111" : "00000000"
        try type(f, wrong)
        XCTAssertTrue(f.errorText.hasPrefix("Incorrect code"))
        XCTAssertEqual(f.step, .enterCode)
        try type(f, code)
        XCTAssertEqual(f.step, .enterNew)
        XCTAssertEqual(f.length, 6)
        try type(f, good2)
        try type(f, good3)
        XCTAssertEqual(f.step, .enterNew, "mismatch goes back to the new passcode")
        try type(f, good2)
        try type(f, good2)
        XCTAssertEqual(f.result, .success)
        XCTAssertNoThrow(try s.verify(secret(good2)))
    }

    func testResetFlowWithExpiredCode() throws {
        let s = try newStore()
        try s.requestResetCode()
        let f = try PasscodeFlow(store: s, kind: .reset)
        clock.advance(seconds: 901)
        try type(f, mail.last!)
        XCTAssertEqual(f.lastError, .resetCodeExpired)
        XCTAssertEqual(f.step, .enterCode)
    }

    func testFlowsNeedTheRightState() throws {
        let empty = try newStore(passcode: nil)
        XCTAssertThrowsPasscodeError(.noPasscode, try PasscodeFlow(store: empty, kind: .unlock))
        let set = try newStore()
        XCTAssertThrowsPasscodeError(.alreadySet, try PasscodeFlow(store: set, kind: .create))
    }
}
