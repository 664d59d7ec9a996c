import XCTest
@testable import PasscodeCore

/// What a TPM binding promises: pure rules, no TPM.
final class TPMPostureTests: XCTestCase {
    func testEveryBindingPromisesNoOfflineSearchButOnlyAProvisionedOneAGuessLimit() {
        var p = TPMPosture()
        XCTAssertEqual(p.value(.noOfflineSearch), 0)  // not bound: nothing
        p.bound = true
        XCTAssertEqual(p.value(.noOfflineSearch), 1)
        XCTAssertEqual(p.value(.hardwareGuessLimit), 0)  // unprovisioned
        p.lockoutAuthSet = true
        XCTAssertEqual(p.value(.hardwareGuessLimit), 0)  // a DA lockout alone is a rate limit
        p.guessLimit = 10
        XCTAssertEqual(p.value(.hardwareGuessLimit), 0)  // a PIN_FAIL index the owner-less may rewrite
        p.ownerAuthSet = true
        XCTAssertEqual(p.value(.hardwareGuessLimit), 1)
        XCTAssertEqual(p.value(.guessLimit), 10)
        p.bound = false
        XCTAssertEqual(p.value(.hardwareGuessLimit), 0)
    }

    func testThePolicysGuessLimitIsTheScheduleMaximum() {
        XCTAssertEqual(LockoutSchedule.apple.guessLimit, 10)
        XCTAssertEqual(LockoutSchedule.android.guessLimit, 20)
        XCTAssertEqual(LockoutSchedule.custom(delays: [5], maxFailures: 7).guessLimit, 7)
        XCTAssertNil(LockoutSchedule.custom(delays: [5], maxFailures: 0).guessLimit)
        for schedule in [LockoutSchedule.apple, .android, .custom(delays: [0, 60], maxFailures: 4)] {
            let limit = schedule.guessLimit!
            XCTAssertEqual(schedule.step(afterFailures: limit), .maximum)
            XCTAssertNotEqual(schedule.step(afterFailures: limit - 1), .maximum)
        }
    }

    func testThePolicyDigestOfPolicySecretIsTheTPMs() {
        // tpm2_policysecret on the PIN_FAIL index 0x01400001 (name from tpm2_nvreadpublic, swtpm 0.7)
        let name = hex("000bbd5afb0d9a4b537c7bcf9823ad3c5ab543ae64a301d2b67d719afa91ae0fcab5")
        XCTAssertEqual(TPMDevice.pinPolicy(name: name), hex("3fff70f47a9a392c7f3b4faf148ac26a52167f08db6c05337dda55377bed12fe"))
    }

    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }
}
