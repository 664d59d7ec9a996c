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

