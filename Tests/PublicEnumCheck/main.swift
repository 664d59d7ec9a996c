// public-enum-check: the public C enums as the Swift code sees them, run in a debug and in a
// release build (make test-swift). Every case, listed in PasscodeCore and read here in another
// module, has the number include/passcode.h documents for its constant, and `init(checked:)`
// takes exactly those numbers. (A Swift enum case made in another module once carried its
// position, not its value, in debug builds only: the lifecycle, logout and notice values start
// at 1.) An executable rather than an XCTest case, so that its release build reuses the release
// modules passcoded is built from (the XCTest bundle needs -enable-testing, a second release
// build of the core).
//
//   public-enum-check include/passcode.h
import Glibc
import PasscodeCore

nonisolated(unsafe) var failures = 0
nonisolated(unsafe) var checks = 0

func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    checks += 1
    if !condition {
        failures += 1
        print("public-enum-check: FAIL: \(message())")
    }
}

/// {enum: [(constant, value)]}, in the order of the header.
func documentedEnums(_ path: String) -> [String: [(String, Int32)]] {
    guard let file = fopen(path, "r") else {
        print("public-enum-check: cannot read \(path)")
        exit(2)
    }
    defer { fclose(file) }
    var enums: [String: [(String, Int32)]] = [:]
    var current: String?
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, Int32(line.count), file) != nil {
        var text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        if text.hasPrefix("typedef enum ") && text.hasSuffix(" {") {
            current = String(text.dropFirst("typedef enum ".count).dropLast(2))
            enums[current!] = []
        } else if text.hasPrefix("}") {
            current = nil
        } else if let name = current, text.hasPrefix("    PASSCODE_"),
                  let eq = text.indices.first(where: { text[$0...].hasPrefix(" = ") }) {
            let number = text[text.index(eq, offsetBy: 3)...].filter { $0 != "," }
            if let value = Int32(number) {
                enums[name]!.append((String(text[text.index(text.startIndex, offsetBy: 4)..<eq]), value))
            }
        }
    }
    return enums
}

guard CommandLine.arguments.count == 2 else {
    print("usage: public-enum-check include/passcode.h")
    exit(2)
}
let documented = documentedEnums(CommandLine.arguments[1])

/// Checks one enum; returns its C name, for the check that every enum was checked.
func check<E: CaseIterable & RawRepresentable>(_ type: E.Type, _ cName: String) -> String where E.RawValue == Int32 {
    guard let constants = documented[cName] else {
        expect(false, "the header has no enum \(cName)")
        return cName
    }
    expect(E.allCases.map(\.rawValue) == constants.map(\.1), "\(cName): the Swift cases' values \(E.allCases.map(\.rawValue)) are not the header's \(constants.map(\.1))")
    for (constant, value) in constants {
        expect(E(checked: value)?.rawValue == value, "\(constant) is no case in Swift")
    }
    let values = constants.map(\.1)
    for outside in [values.min()! - 1, values.max()! + 1, Int32.min, Int32.max] {
        expect(E(checked: outside) == nil, "\(cName): \(outside) is no constant, yet init(checked:) took it")
    }
    return cName
}

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
    check(Message.self, "passcode_message"),
    check(MessageTopic.self, "passcode_message_topic"),
    check(LoginState.self, "passcode_login_state"),
]
// The status and the cost are Swift enums of the C ABI's module, not visible here.
expect(Set(checked) == Set(documented.keys).subtracting(["passcode_status", "passcode_cost"]),
       "not every enum of the header is checked here: \(Set(documented.keys).subtracting(checked).sorted())")

/// Cases named in this module, which start at 1 or sit past the first: each has its constant's number.
func value(_ enumName: String, _ constant: String) -> Int32? {
    documented[enumName]?.first { $0.0 == constant }?.1
}
expect(Notice.passcodeReset.rawValue == value("passcode_notice", "PASSCODE_NOTICE_PASSCODE_RESET"), "Notice.passcodeReset")
expect(LogoutReason.maxFailures.rawValue == value("passcode_logout_reason", "PASSCODE_LOGOUT_REASON_MAX_FAILURES"), "LogoutReason.maxFailures")
expect(LogoutReason.forgotPasscode.rawValue == value("passcode_logout_reason", "PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE"),
       "LogoutReason.forgotPasscode")
expect(LifecycleEvent.set.rawValue == value("passcode_lifecycle_event", "PASSCODE_LIFECYCLE_EVENT_SET"), "LifecycleEvent.set")
expect(LifecycleEvent.forgot.rawValue == value("passcode_lifecycle_event", "PASSCODE_LIFECYCLE_EVENT_FORGOT"), "LifecycleEvent.forgot")
expect(Setting.passcodeAfterEveryLaunch.rawValue == value("passcode_setting", "PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH"),
       "Setting.passcodeAfterEveryLaunch")
expect(SecurityEvent.tpmRollback.rawValue == value("passcode_log_kind", "PASSCODE_LOG_KIND_TPM_ROLLBACK"), "SecurityEvent.tpmRollback")
expect(TPMPostureItem.guessLimit.rawValue == value("passcode_tpm_posture_item", "PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT"),
       "TPMPostureItem.guessLimit")
expect(BiometricRefusal.keyNotInMemory.rawValue == value("passcode_biometric_refusal", "PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY"),
       "BiometricRefusal.keyNotInMemory")

#if DEBUG
let build = "debug"
#else
let build = "release"
#endif
print("public-enum-check (\(build) build): \(checked.count) enums, \(checks) checks, \(failures) failed")
exit(failures == 0 ? 0 : 1)
