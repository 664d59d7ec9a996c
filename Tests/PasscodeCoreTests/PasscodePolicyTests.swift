import XCTest
@testable import PasscodeCore

final class PasscodePolicyTests: XCTestCase {
    private func digits(_ s: String) -> [UInt8] { s.utf8.map { $0 - 48 } }

    func testRunsOfFourRepeatedOrConstantStepDigitsAreWeak() {
        for weak in ["1111", "1234", "4321", "2468", "9630", "381111", "505678", "864200", "0000"] {
            XCTAssertNotNil(PasscodePolicy.weakness(digits(weak)), weak)
        }
        XCTAssertEqual(PasscodePolicy.longestConstantStepRun(digits("123")), 3)
        XCTAssertEqual(PasscodePolicy.longestConstantStepRun(digits("1357")), 4)
    }

    func testRunsOfThreeAreAllowed() {
        for ok in ["1238", "386491", "915372", "502817", "3860"] {
            XCTAssertNil(PasscodePolicy.weakness(digits(ok)), ok)
        }
    }

    func testCommonSixDigitChoicesAreWeak() {
        let cases = ["123123": "repeats", "121212": "repeats", "112233": "doubled", "123321": "mirrors",
                     "250390": "date", "122590": "date", "900325": "date", "147852": "common", "147258": "common"]
        for (code, word) in cases {
            let why = PasscodePolicy.weakness(digits(code))
            XCTAssertNotNil(why, code)
            XCTAssertTrue(why!.contains(word), "\(code): \(why!)")
            XCTAssertFalse(why!.contains(code), "the reason must not repeat the digits")
        }
    }

    func testBlocklistCoversAboutATenthOfTheSixDigitSpace() {
        var weak = 0
        for n in 0..<1_000_000 {
            var d = [UInt8](repeating: 0, count: 6)
            var v = n
            for i in (0..<6).reversed() { d[i] = UInt8(v % 10); v /= 10 }
            if PasscodePolicy.weakness(d) != nil { weak += 1 }
        }
        // Markert et al.: a list of about 10 % of the space is the best balance.
        XCTAssertGreaterThan(weak, 80_000)
        XCTAssertLessThan(weak, 160_000)
    }
}

final class LockoutScheduleTests: XCTestCase {
    func testNextStepCountsTheWrongAnswersLeftBeforeTheNextDelay() {
        let apple = LockoutSchedule.apple
        XCTAssertEqual(apple.nextStep(afterFailures: 0)?.failuresLeft, 5)
        XCTAssertEqual(apple.nextStep(afterFailures: 2)?.failuresLeft, 3)
        XCTAssertEqual(apple.nextStep(afterFailures: 2)?.step, .delay(seconds: 60))
        XCTAssertEqual(apple.nextStep(afterFailures: 5)?.failuresLeft, 1)
        XCTAssertEqual(apple.nextStep(afterFailures: 5)?.step, .delay(seconds: 300))
        XCTAssertEqual(apple.nextStep(afterFailures: 9)?.step, .maximum)
        XCTAssertEqual(LockoutSchedule.custom(delays: [0, 0, 0, 30], maxFailures: 0).nextStep(afterFailures: 1)?.failuresLeft, 3)
        XCTAssertEqual(LockoutSchedule.custom(delays: [0, 0, 0, 30], maxFailures: 0).nextStep(afterFailures: 50)?.step, .delay(seconds: 30))
        XCTAssertEqual(LockoutSchedule.custom(delays: [0], maxFailures: 8).nextStep(afterFailures: 3)?.failuresLeft, 5)
        XCTAssertNil(LockoutSchedule.custom(delays: [0], maxFailures: 0).nextStep(afterFailures: 3))
        XCTAssertNil(LockoutSchedule.custom(delays: [], maxFailures: 0).nextStep(afterFailures: 0))
    }

    func testAppleTable() {
        let s = LockoutSchedule.apple
        let expected: [LockoutStep] = [.none, .none, .none, .none, .delay(seconds: 60), .delay(seconds: 300),
                                       .delay(seconds: 900), .delay(seconds: 900), .delay(seconds: 3600), .maximum]
        for (i, step) in expected.enumerated() { XCTAssertEqual(s.step(afterFailures: i + 1), step, "failure \(i + 1)") }
        XCTAssertEqual(s.step(afterFailures: 0), .none)
    }

    func testAndroidTableTriplesAndStopsAtTwenty() {
        let s = LockoutSchedule.android
        XCTAssertEqual(s.step(afterFailures: 4), .none)
        XCTAssertEqual(s.step(afterFailures: 5), .delay(seconds: 60))
        XCTAssertEqual(s.step(afterFailures: 8), .delay(seconds: 1800))
        XCTAssertEqual(s.step(afterFailures: 9), .delay(seconds: 5400))
        XCTAssertEqual(s.step(afterFailures: 10), .delay(seconds: 243 * 60))
        XCTAssertEqual(s.step(afterFailures: 19), .delay(seconds: 4_782_969 * 60))
        XCTAssertEqual(s.step(afterFailures: 20), .maximum)
    }

    func testCustomTableRepeatsItsLastDelay() {
        let s = LockoutSchedule.custom(delays: [0, 30, 90], maxFailures: 6)
        XCTAssertEqual(s.step(afterFailures: 1), .none)
        XCTAssertEqual(s.step(afterFailures: 2), .delay(seconds: 30))
        XCTAssertEqual(s.step(afterFailures: 5), .delay(seconds: 90))
        XCTAssertEqual(s.step(afterFailures: 6), .maximum)
        XCTAssertEqual(LockoutSchedule.custom(delays: [5], maxFailures: 0).step(afterFailures: 1000), .delay(seconds: 5))
    }
}

final class AutoLockPolicyTests: XCTestCase {
    let start = BootInstant(bootID: 1, ms: 10_000)
    func at(_ ms: Int64, boot: UInt64 = 1) -> ClockReading { ClockReading(bootMs: ms, wallMs: 0, bootID: boot) }

    // The "immediately" timeout and its 5-second grace period.
    func testImmediatelyLocksAfterTheGracePeriodOnly() {
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 0, since: start, now: at(12_000)), .none)
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 0, since: start, now: at(14_999)), .none)
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 0, since: start, now: at(15_000)), .background)
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 0, since: start, now: at(20_000)), .background)
    }

    func testTimeoutLocksAtExactlyTheTimeout() {
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 60, since: start, now: at(69_999)), .none)
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 60, since: start, now: at(70_000)), .background)
    }

    func testRestartOrABackwardClockLocks() {
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 3600, since: start, now: at(11_000, boot: 2)), .restart)
        XCTAssertEqual(AutoLockPolicy.lockOnReturn(timeoutSeconds: 3600, since: start, now: at(9_000)), .background)
    }
}

final class BiometricPolicyTests: XCTestCase {
    let now = ClockReading(bootMs: 100 * 3600 * 1000, wallMs: 0, bootID: 1)
    func facts() -> BiometricPolicy.Facts {
        BiometricPolicy.Facts(passcodeSet: true, lockEnabled: true, biometricEnabled: true, biometricAvailable: true,
                              resetRequired: false, lockedOut: false, firstUnlockAfterLaunch: false,
                              lastPasscodeEntry: BootInstant(bootID: 1, ms: now.bootMs - 3600 * 1000), biometricFailures: 0)
    }

    func testAllowedWhenEveryRuleHolds() {
        XCTAssertEqual(BiometricPolicy.refusal(facts(), now: now), .none)
    }

    func testEachRuleRefusesWithItsReason() {
        var f = facts(); f.firstUnlockAfterLaunch = true
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .firstUnlockAfterLaunch)
        f = facts(); f.lastPasscodeEntry = BootInstant(bootID: 1, ms: now.bootMs - 48 * 3600 * 1000)
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .passcodeNotUsedFor48Hours)
        f = facts(); f.lastPasscodeEntry = BootInstant(bootID: 1, ms: now.bootMs - 48 * 3600 * 1000 + 1)
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .none)
        f = facts(); f.biometricFailures = 5
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .tooManyBiometricFailures)
        f = facts(); f.biometricFailures = 4
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .none)
        f = facts(); f.lockedOut = true
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .lockedOut)
        f = facts(); f.lockEnabled = false
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .lockDisabled)
        f = facts(); f.lastPasscodeEntry = BootInstant(bootID: 0, ms: 5)
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .deviceRestarted)
        f = facts(); f.resetRequired = true
        XCTAssertEqual(BiometricPolicy.refusal(f, now: now), .resetRequired)
    }
}
