import XCTest
@testable import PasscodeCore

/// The test cases of the lock screen and app lifecycle, with libpasscode's safer defaults.
final class LockLifecycleTests: XCTestCase {
    let clock = TestClock()

    func lockedStore(timeout: Int64 = 0) throws -> PasscodeStore {
        let (store, _) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        try store.set(.autoLockSeconds, to: timeout)
        return store
    }

    // Case 1: background 10 s and return: locked.
    func testLocksOnReturnAfterTheGracePeriod() throws {
        let store = try lockedStore()
        try store.report(.background)
        clock.advance(seconds: 10)
        XCTAssertEqual(try store.report(.foreground), LockStatus(locked: true, reason: .background))
    }

    // Case 2: background 2 s and return: not locked.
    func testNoLockWithinTheGracePeriod() throws {
        let store = try lockedStore()
        try store.report(.background)
        clock.advance(seconds: 2)
        XCTAssertFalse(try store.report(.foreground).locked)
    }

    // Case 3: lock disabled: no lock screen.
    func testNoLockWhenDisabled() throws {
        let store = try lockedStore()
        try store.disable(current: secret(good1))
        try store.report(.background)
        clock.advance(seconds: 3600)
        XCTAssertFalse(try store.report(.foreground).locked)
        XCTAssertFalse(try store.report(.launched).locked)
        XCTAssertFalse(try store.report(.lockNow).locked)
    }

    // Cases 4 and 5: the right passcode unlocks; a wrong one does not.
    func testPasscodeUnlocks() throws {
        let store = try lockedStore()
        try store.report(.lockNow)
        XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret(good2)))
        XCTAssertTrue(try store.lockStatus().locked)
        try store.verify(secret(good1))
        XCTAssertFalse(try store.lockStatus().locked)
    }

    // Case 11, the safer default: a relaunch locks (killing the app must not skip the lock)...
    func testLaunchLocksByDefault() throws {
        let store = try lockedStore()
        XCTAssertEqual(try store.report(.launched), LockStatus(locked: true, reason: .launch))
    }

    // ...and the other behaviour is a setting.
    func testLaunchLockCanBeTurnedOff() throws {
        let store = try lockedStore()
        try store.set(.lockAtLaunch, to: 0)
        XCTAssertFalse(try store.report(.launched).locked)
    }

    // A 1-minute timeout, 2 minutes in the background: locked.
    func testTimeoutSettingTakesEffect() throws {
        let store = try lockedStore(timeout: 60)
        try store.report(.background)
        clock.advance(seconds: 59)
        XCTAssertFalse(try store.report(.foreground).locked)
        try store.report(.background)
        clock.advance(seconds: 120)
        XCTAssertTrue(try store.report(.foreground).locked)
    }

    func testDefaultTimeoutIsFifteenMinutes() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        XCTAssertEqual(try store.get(.autoLockSeconds), 900)
        try store.report(.background)
        clock.advance(seconds: 899)
        XCTAssertFalse(try store.report(.foreground).locked)
        try store.report(.background)
        clock.advance(seconds: 900)
        XCTAssertTrue(try store.report(.foreground).locked)
    }

    /// Both clocks, the longer: set back, the boot clock still locks; set forward two
    /// years, the wall clock locks at once (the safe side).
    func testWallClockJumpsNeverSkipTheAutoLockAndAForwardOneLocks() throws {
        let store = try lockedStore(timeout: 300)
        try store.report(.background)
        clock.jumpWall(seconds: -365 * 86400)
        clock.advance(seconds: 301)
        XCTAssertTrue(try store.report(.foreground).locked)
        try store.verify(secret(good1))
        try store.report(.background)
        clock.jumpWall(seconds: 2 * 365 * 86400)
        clock.advance(seconds: 10)
        XCTAssertTrue(try store.report(.foreground).locked)
    }

    func testRestartWhileInBackgroundLocks() throws {
        let store = try lockedStore(timeout: 3600)
        try store.report(.background)
        clock.reboot()
        XCTAssertEqual(try store.report(.foreground), LockStatus(locked: true, reason: .restart))
    }

    // Cases 7-9: biometric unlock, with the policy rules.
    func testBiometricUnlockFollowsPolicy() throws {
        let store = try lockedStore()
        XCTAssertThrowsPasscodeError(.biometricUnavailable, try store.set(.biometricEnabled, to: 1))
        try store.setBiometricAvailability(true, kind: .faceID)
        XCTAssertEqual(try store.securityLabel(), "Passcode & Face ID")
        try store.set(.biometricEnabled, to: 1)
        // Per boot, as on iOS: a launch in the boot of the last passcode entry may use biometrics.
        try store.report(.launched)
        XCTAssertTrue(try store.lockStatus().locked)
        XCTAssertNoThrow(try store.biometricUnlock())
        // With "passcode after every launch", the first unlock after a launch needs the passcode.
        try store.set(.passcodeAfterEveryLaunch, to: 1)
        try store.report(.launched)
        XCTAssertThrowsPasscodeError(.passcodeRequired(.firstUnlockAfterLaunch), try store.biometricUnlock())
        XCTAssertTrue(try store.lockStatus().locked)
        try store.verify(secret(good1))
        try store.report(.lockNow)
        XCTAssertNoThrow(try store.biometricUnlock())
        XCTAssertFalse(try store.lockStatus().locked)
        // Five failed matches need the passcode.
        try store.report(.lockNow)
        for _ in 0..<5 { try store.biometricFailed() }
        XCTAssertThrowsPasscodeError(.passcodeRequired(.tooManyBiometricFailures), try store.biometricUnlock())
        try store.verify(secret(good1))
        // 48 hours without the passcode.
        try store.report(.lockNow)
        clock.advance(seconds: 48 * 3600)
        XCTAssertThrowsPasscodeError(.passcodeRequired(.passcodeNotUsedFor48Hours), try store.biometricUnlock())
    }

    /// A login store whose PAM stack turned the finger on (pam_passcode's `fingerprint`): the
    /// stack is the switch, so biometric_enabled is not read; every other rule is the core's.
    func testLoginFingerprintTakesTheStackAsTheSwitchAndKeepsEveryOtherRule() throws {
        let store = try lockedStore()
        try store.setBiometricAvailability(true, kind: .fingerprint)
        XCTAssertEqual(try store.get(.biometricEnabled), 0)
        XCTAssertEqual(try store.biometricRefusal(), .biometricNotEnabled)
        XCTAssertEqual(try store.loginFingerprintRefusal(), BiometricRefusal.none)
        XCTAssertNoThrow(try store.loginFingerprintUnlock())
        XCTAssertFalse(try store.lockStatus().locked)
        XCTAssertEqual(try store.get(.biometricEnabled), 0)  // nothing written
        try store.report(.lockNow)
        for _ in 0..<5 { try store.biometricFailed() }
        XCTAssertThrowsPasscodeError(.passcodeRequired(.tooManyBiometricFailures), try store.loginFingerprintUnlock())
        try store.verify(secret(good1))
        try store.report(.lockNow)
        clock.advance(seconds: 48 * 3600)
        XCTAssertEqual(try store.loginFingerprintRefusal(), .passcodeNotUsedFor48Hours)
        try store.verify(secret(good1))
        clock.reboot()
        XCTAssertEqual(try store.loginFingerprintRefusal(), .deviceRestarted)
        try store.setBiometricAvailability(false, kind: .fingerprint)
        XCTAssertEqual(try store.loginFingerprintRefusal(), .biometricUnavailable)
    }

    func testBiometricRefusedDuringLockout() throws {
        let store = try lockedStore()
        try store.setBiometricAvailability(true, kind: .touchID)
        try store.set(.biometricEnabled, to: 1)
        XCTAssertEqual(try store.securityLabel(), "Passcode & Touch ID")
        for i in 0..<5 { XCTAssertThrowsPasscodeError(.wrongPasscode, try store.verify(secret("90000\(i)"))) }
        try store.report(.lockNow)
        XCTAssertThrowsPasscodeError(.passcodeRequired(.lockedOut), try store.biometricUnlock())
    }

    func testBiometricNeedsAPasscodeAndAvailability() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.setBiometricAvailability(true, kind: .other)
        XCTAssertEqual(try store.securityLabel(), "Passcode & Biometric")
        XCTAssertThrowsPasscodeError(.invalidSetting("biometric unlock needs a passcode to be set"), try store.set(.biometricEnabled, to: 1))
        try store.setPasscode(secret(good1))
        try store.set(.biometricEnabled, to: 1)
        try store.setBiometricAvailability(false, kind: .none)
        // A report changes no setting: policy refuses unavailable biometrics instead.
        XCTAssertEqual(try store.get(.biometricEnabled), 1)
        XCTAssertEqual(try store.biometricRefusal(), .biometricUnavailable)
    }

    /// No biometric unlock while the passcode lock is off (the switch is not shown);
    /// the refusal changes nothing, and turning the lock back on allows it again.
    func testBiometricNeedsTheLockOn() throws {
        let (store, _) = try makeStore(clock: clock)
        try store.setBiometricAvailability(true, kind: .fingerprint)
        try store.setPasscode(secret(good1))
        _ = try store.disable(current: secret(good1))
        XCTAssertThrowsPasscodeError(.invalidSetting("biometric unlock needs the passcode lock to be on"),
                                     try store.set(.biometricEnabled, to: 1))
        XCTAssertEqual(try store.get(.biometricEnabled), 0)
        try store.enable()
        try store.set(.biometricEnabled, to: 1)
        XCTAssertEqual(try store.get(.biometricEnabled), 1)
    }

    func testLockStateIsSharedBetweenHandles() throws {
        let (store, path) = try makeStore(clock: clock)
        try store.setPasscode(secret(good1))
        try store.report(.lockNow)
        let other = try reopen(path, clock: clock)
        XCTAssertEqual(try other.lockStatus(), LockStatus(locked: true, reason: .requested))
        try other.verify(secret(good1))
        XCTAssertFalse(try store.lockStatus().locked)
    }
}
