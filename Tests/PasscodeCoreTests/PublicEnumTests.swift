import Glibc
import XCTest
import PasscodeCore

/// The public C enums as the Swift code sees them: every case, listed in PasscodeCore and read
/// here in another module, has the number include/passcode.h documents for its constant, and
/// `init(checked:)` takes exactly those numbers. `make test-swift` runs this in a debug and in a
/// release build (a Swift enum case made in another module once carried its position, not its
/// value, in debug builds only: the lifecycle, logout and notice values start at 1).
final class PublicEnumTests: XCTestCase {
    /// {enum: [(constant, value)]}, in the order of include/passcode.h.
    static let documented: [String: [(String, Int32)]] = {
        let here = #filePath
        let path = String(here[..<here.lastIndex(of: "/")!]) + "/../../include/passcode.h"
        guard let file = fopen(path, "r") else { fatalError("cannot read \(path)") }
        defer { fclose(file) }
        var enums: [String: [(String, Int32)]] = [:]
        var current: String?
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .trimmingTrailingNewline()
            if text.hasPrefix("typedef enum ") && text.hasSuffix(" {") {
                current = String(text.dropFirst("typedef enum ".count).dropLast(2))
                enums[current!] = []
            } else if text.hasPrefix("}") {
                current = nil
            } else if let name = current, text.hasPrefix("    PASSCODE_"), let eq = text.range(of: " = ") {
                let number = text[eq.upperBound...].filter { $0 != "," }
                if let value = Int32(number) {
                    enums[name]!.append((String(text.dropFirst(4)[..<eq.lowerBound]), value))
                }
            }
        }
        return enums
    }()

    /// Checks one enum; returns its C name, for the test that every enum was checked.
    @discardableResult
    func check<E: CaseIterable & RawRepresentable>(_ type: E.Type, _ cName: String,
                                                   line: UInt = #line) -> String where E.RawValue == Int32 {
        guard let constants = Self.documented[cName] else {
            XCTFail("include/passcode.h has no enum \(cName)", line: line)
            return cName
        }
        XCTAssertEqual(E.allCases.map(\.rawValue), constants.map(\.1), "\(cName): the Swift cases' values", line: line)
        for (constant, value) in constants {
            XCTAssertEqual(E(checked: value)?.rawValue, value, "\(constant) is no case in Swift", line: line)
        }
        let values = constants.map(\.1)
        for outside in [values.min()! - 1, values.max()! + 1, Int32.min, Int32.max] {
            XCTAssertNil(E(checked: outside), "\(cName): \(outside) is no constant, yet init(checked:) took it", line: line)
        }
        return cName
    }

    func testEveryPublicEnumHasTheDocumentedValues() {
        let checked = [
            check(AppEvent.self, "passcode_app_event"),
            check(LockReason.self, "passcode_lock_reason"),
            check(BiometricRefusal.self, "passcode_biometric_refusal"),
            check(BiometricKind.self, "passcode_biometric_kind"),
            check(SecurityEvent.self, "passcode_log_kind"),
            check(FlowKind.self, "passcode_flow_kind"),
            check(FlowStep.self, "passcode_flow_step"),
            check(FlowResult.self, "passcode_flow_result"),
            check(MaxFailureAction.self, "passcode_max_failure_action"),
            check(LockoutScheduleKind.self, "passcode_lockout_schedule"),
            check(Notice.self, "passcode_notice"),
            check(LogoutReason.self, "passcode_logout_reason"),
            check(LifecycleEvent.self, "passcode_lifecycle_event"),
            check(Setting.self, "passcode_setting"),
            check(TPMPostureItem.self, "passcode_tpm_posture_item"),
        ]
        // The status and the cost are Swift enums of the C ABI's module, not visible here.
        XCTAssertEqual(Set(checked), Set(Self.documented.keys).subtracting(["passcode_status", "passcode_cost"]),
                       "every enum of the header is checked here")
    }

    /// Cases named in this module, which start at 1 or sit past the first: each has its constant's number.
    func testCasesNamedInAnotherModuleKeepTheirValues() {
        func value(_ enumName: String, _ constant: String) -> Int32? {
            Self.documented[enumName]?.first { $0.0 == constant }?.1
        }
        XCTAssertEqual(Notice.passcodeReset.rawValue, value("passcode_notice", "PASSCODE_NOTICE_PASSCODE_RESET"))
        XCTAssertEqual(LogoutReason.maxFailures.rawValue, value("passcode_logout_reason", "PASSCODE_LOGOUT_REASON_MAX_FAILURES"))
        XCTAssertEqual(LogoutReason.forgotPasscode.rawValue, value("passcode_logout_reason", "PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE"))
        XCTAssertEqual(LifecycleEvent.set.rawValue, value("passcode_lifecycle_event", "PASSCODE_LIFECYCLE_EVENT_SET"))
        XCTAssertEqual(LifecycleEvent.forgot.rawValue, value("passcode_lifecycle_event", "PASSCODE_LIFECYCLE_EVENT_FORGOT"))
        XCTAssertEqual(Setting.passcodeAfterEveryLaunch.rawValue, value("passcode_setting", "PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH"))
        XCTAssertEqual(SecurityEvent.tpmRollback.rawValue, value("passcode_log_kind", "PASSCODE_LOG_KIND_TPM_ROLLBACK"))
        XCTAssertEqual(TPMPostureItem.guessLimit.rawValue, value("passcode_tpm_posture_item", "PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT"))
        XCTAssertEqual(BiometricRefusal.keyNotInMemory.rawValue,
                       value("passcode_biometric_refusal", "PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY"))
    }
}

private extension String {
    func trimmingTrailingNewline() -> String {
        var s = self
        while s.last == "\n" { s.removeLast() }
        return s
    }
}
