import Glibc
import XCTest
@testable import PasscodeCore

/// What root does to a user's login store (passcodectl, through passcoded's User* methods).
final class AdministratorTests: XCTestCase {
    let clock = TestClock()

    func testEnrolTakesTheLengthOfThePasscode() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.enrol(secret("4071"))
        XCTAssertEqual(try store.passcodeLength(), 4)
        XCTAssertNoThrow(try store.verify(secret("4071")))
        XCTAssertThrowsPasscodeError(.alreadySet, try store.enrol(secret("582046")))
    }

    func testClearFailuresEndsTheLockoutAndKeepsThePasscode() throws {
        let (store, path) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        for guess in ["111000", "222000", "333000", "444000", "555000"] {
            XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret(guess)))
        }
        XCTAssertGreaterThan(try store.lockoutRemainingSeconds(), 0)
        try store.clearFailuresByAdministrator()
        let again = try reopen(path, clock: clock)
        XCTAssertEqual(try again.failedAttempts(), 0)
        XCTAssertEqual(try again.lockoutRemainingSeconds(), 0)
        XCTAssertTrue(try again.isPasscodeSet())
        XCTAssertNoThrow(try again.verify(secret(good1)))
        XCTAssertTrue(try again.events().contains { $0.kind == .resetCompleted })
    }

    func testRemoveByAdministratorNeedsNoPasscodeAndClearsEverything() throws {
        let (store, path) = try makeStore(clock: clock)
        XCTAssertThrowsPasscodeError(.noPasscode, try store.removeByAdministrator())
        XCTAssertThrowsPasscodeError(.noPasscode, try store.clearFailuresByAdministrator())
        try store.setPasscode(secret(good1))
        XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret(good2)))
        try store.removeByAdministrator()
        let again = try reopen(path, clock: clock)
        XCTAssertFalse(try again.isPasscodeSet())
        XCTAssertEqual(try again.failedAttempts(), 0)
        XCTAssertTrue(try again.events().contains { $0.kind == .passcodeRemoved })
    }

    func testRequireResetKeepsThePasscodeUntilTheAdministratorClearsIt() throws {
        let (store, path) = try makeStore(clock: clock)
        XCTAssertThrowsPasscodeError(.noPasscode, try store.requireReset())
        try store.setPasscode(secret(good1))
        try store.requireReset()
        let again = try reopen(path, clock: clock)
        XCTAssertTrue(try again.isPasscodeSet())
        XCTAssertTrue(try again.isResetRequired())
        XCTAssertThrowsPasscodeError(.resetRequired, try again.verify(secret(good1)))
        XCTAssertThrowsPasscodeError(.resetRequired, try again.removePasscode(current: secret(good1)))
        XCTAssertTrue(try again.events().contains { $0.kind == .forgotPasscode })
        try again.clearFailuresByAdministrator()
        XCTAssertNoThrow(try again.verify(secret(good1)))
    }
}
