import Glibc
import XCTest
@testable import PasscodeCore

/// The account-security screen's "Definition of Done", and the settings rules.
final class AccountTests: XCTestCase {
    let clock = TestClock()

    func storeWithSessions() throws -> (PasscodeStore, String) {
        let (s, path) = try makeStore(clock: clock)
        try s.recordSession(DeviceSession(id: "s-this", deviceName: "Riki's iPhone", platform: "iOS", lastActiveWallMs: 3000, location: "London", isCurrent: true))
        try s.recordSession(DeviceSession(id: "s-ipad", deviceName: "iPad Pro", platform: "iPadOS", lastActiveWallMs: 2000, location: nil, isCurrent: false))
        try s.recordSession(DeviceSession(id: "s-mac", deviceName: "MacBook Pro", platform: "macOS", lastActiveWallMs: 1000, location: "Leeds", isCurrent: false))
        return (s, path)
    }

    func testTogglesPersistAfterRelaunch() throws {
        let (s, path) = try makeStore(clock: clock)
        try s.setPasscode(secret(good1))
        try s.setBiometricAvailability(true, kind: .faceID)
        try s.set(.biometricEnabled, to: 1)
        try s.set(.requireBiometricOnLaunch, to: 1)
        try s.set(.twoFactorEnabled, to: 1)
        let again = try reopen(path, clock: clock)
        XCTAssertEqual(try again.get(.biometricEnabled), 1)
        XCTAssertEqual(try again.get(.requireBiometricOnLaunch), 1)
        XCTAssertEqual(try again.get(.twoFactorEnabled), 1)
    }

    func testRequireOnLaunchNeedsBiometricUnlock() throws {
        let (s, _) = try makeStore(clock: clock)
        XCTAssertThrowsError(try s.set(.requireBiometricOnLaunch, to: 1))
        XCTAssertEqual(try s.get(.requireBiometricOnLaunch), 0)
    }

    func testChangePasswordRecordsTheTime() throws {
        let (s, _) = try makeStore(clock: clock)
        XCTAssertEqual(try s.get(.lastPasswordChange), 0)
        try s.checkPasswordChange(current: secret("old password"), new: secret("new password!"), confirmation: secret("new password!"))
        XCTAssertEqual(try s.get(.lastPasswordChange), clock.now.wallMs)
    }

    func testChangePasswordFailuresEachHaveTheirStatusAndChangeNothing() throws {
        let (s, _) = try makeStore(clock: clock)
        XCTAssertThrowsPasscodeError(.passwordEmpty, try s.checkPasswordChange(current: secret(""), new: secret("abcdefgh"), confirmation: secret("abcdefgh")))
        XCTAssertThrowsPasscodeError(.passwordTooShort(minimum: 8), try s.checkPasswordChange(current: secret("x"), new: secret("abcdefg"), confirmation: secret("abcdefg")))
        XCTAssertThrowsPasscodeError(.passwordMismatch, try s.checkPasswordChange(current: secret("x"), new: secret("abcdefgh"), confirmation: secret("abcdefgX")))
        let long = String(repeating: "é", count: 257)
        XCTAssertThrowsPasscodeError(.passwordTooLong(maximum: 256), try s.checkPasswordChange(current: secret("x"), new: secret(long), confirmation: secret(long)))
        XCTAssertThrowsError(try s.checkPasswordChange(current: secret("x"), new: SecretBytes([0xff, 0xfe, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41]), confirmation: secret("x")))
        XCTAssertEqual(try s.get(.lastPasswordChange), 0)
    }

    func testPasswordLengthCountsCodePointsNotBytes() throws {
        let (s, _) = try makeStore(clock: clock)
        let sevenEmoji = String(repeating: "🔒", count: 7)  // 28 bytes, 7 characters
        XCTAssertThrowsPasscodeError(.passwordTooShort(minimum: 8), try s.checkPasswordChange(current: secret("x"), new: secret(sevenEmoji), confirmation: secret(sevenEmoji)))
        let eight = "ünïcødé!"
        XCTAssertNoThrow(try s.checkPasswordChange(current: secret("x"), new: secret(eight), confirmation: secret(eight)))
    }

    func testSessionsListThisDeviceFirst() throws {
        let (s, _) = try storeWithSessions()
        let list = try s.sessions()
        XCTAssertEqual(list.map(\.id), ["s-this", "s-ipad", "s-mac"])
        XCTAssertTrue(list[0].isCurrent)
        XCTAssertEqual(list[2].location, "Leeds")
        XCTAssertNil(list[1].location)
    }

    func testSignOutRemovesADeviceAndPersists() throws {
        let (s, path) = try storeWithSessions()
        try s.signOutSession(id: "s-ipad")
        XCTAssertEqual(try reopen(path, clock: clock).sessions().map(\.id), ["s-this", "s-mac"])
        XCTAssertThrowsPasscodeError(.sessionNotFound, try s.signOutSession(id: "s-ipad"))
        XCTAssertThrowsPasscodeError(.sessionIsCurrent, try s.signOutSession(id: "s-this"))
    }

    func testSignOutAllOthersKeepsThisDevice() throws {
        let (s, path) = try storeWithSessions()
        XCTAssertEqual(try s.signOutOtherSessions(), 2)
        XCTAssertEqual(try reopen(path, clock: clock).sessions().map(\.id), ["s-this"])
    }

    func testSignOutHookFailureKeepsTheSession() throws {
        let (s, _) = try storeWithSessions()
        s.updateHooks { $0.signOutSession = { id in id == "s-mac" ? "backend refused" : nil } }
        XCTAssertThrowsPasscodeError(.hookFailed("backend refused"), try s.signOutSession(id: "s-mac"))
        XCTAssertThrowsPasscodeError(.hookFailed("backend refused"), try s.signOutOtherSessions())
        XCTAssertEqual(try s.sessions().map(\.id), ["s-this", "s-mac"])
    }

    func testDeleteAccountNeedsExactlyDELETE() throws {
        let (s, _) = try storeWithSessions()
        try s.setPasscode(secret(good1))
        for wrong in ["delete", "DELETE ", "Delete", "", "DELETED"] {
            XCTAssertThrowsPasscodeError(.confirmationMismatch, try s.deleteAccount(confirmation: wrong))
        }
        XCTAssertEqual(try s.sessions().count, 3)
        XCTAssertTrue(try s.isPasscodeSet())
    }

    func testDeleteAccountLeavesNothingInTheFile() throws {
        let (s, path) = try storeWithSessions()
        try s.setPasscode(secret(good1))
        try s.set(.twoFactorEnabled, to: 1)
        let hash = try XCTUnwrap(try s.read { () throws(PasscodeError) in try s.db.database.scalar("SELECT verifier FROM passcode")?.text })
        let told = Box(false)
        s.updateHooks { $0.accountDeleted = { told.value = true } }
        try s.deleteAccount(confirmation: "DELETE")
        XCTAssertTrue(told.value)
        XCTAssertFalse(try s.isPasscodeSet())
        XCTAssertEqual(try s.sessions(), [])
        XCTAssertEqual(try s.get(.twoFactorEnabled), 0)
        for file in [path, path + "-wal"] {
            let bytes = readAll(file)
            for needle in ["MacBook Pro", "iPad Pro", "Riki's iPhone", hash, String(hash.suffix(20))] {
                XCTAssertFalse(contains(bytes, Array(needle.utf8)), "\(needle) still in \(file)")
            }
        }
    }

    // A setting the backend rejects keeps its old value and reports the message.
    func testSettingsHookFailureRollsBack() throws {
        let (s, _) = try makeStore(clock: clock)
        let seen = Box<[String]>([])
        s.updateHooks { $0.settingChange = { key, old, new in seen.value.append("\(key):\(old)->\(new)"); return "network unreachable" } }
        XCTAssertThrowsPasscodeError(.hookFailed("network unreachable"), try s.set(.autoLockSeconds, to: 300))
        XCTAssertEqual(try s.get(.autoLockSeconds), 900)
        XCTAssertEqual(seen.value, ["auto_lock_seconds:900->300"])
        s.updateHooks { $0.settingChange = { _, _, _ in nil } }
        try s.set(.autoLockSeconds, to: 300)
        XCTAssertEqual(try s.get(.autoLockSeconds), 300)
    }

    func testInvalidValuesNeverReachTheHook() throws {
        let (s, _) = try makeStore(clock: clock)
        let calls = Box(0)
        s.updateHooks { $0.settingChange = { _, _, _ in calls.value += 1; return nil } }
        XCTAssertThrowsError(try s.set(.autoLockSeconds, to: 120))
        XCTAssertThrowsError(try s.set(.biometricEnabled, to: 1))
        XCTAssertEqual(calls.value, 0)
    }

    // passcoded's seam (`PasscodeStore.callers`): one handle serves several callers, whose calls
    // overlap; each caller's chosen length, proof and hooks are its own, never the handle's nor
    // another caller's.
    func testCallersOfASharedHandleKeepTheirOwnState() throws {
        let (s, _) = try makeStore(clock: clock, allowWeak: true)
        let current = Box<CallerState?>(nil)
        s.callers = { current.value }
        var refusing = Hooks()
        refusing.settingChange = { _, _, _ in "asked for b" }
        let a = CallerState(), b = CallerState(hooks: refusing)
        current.value = a
        try s.setPasscodeLength(4)
        current.value = b
        XCTAssertEqual(try s.passcodeLength(), 6, "a's length is a's")
        XCTAssertThrowsPasscodeError(.hookFailed("asked for b"), try s.set(.autoLockSeconds, to: 300))
        current.value = a
        try s.set(.autoLockSeconds, to: 300)  // a has no hook
        try s.setPasscode(secret("3864"))
        XCTAssertNil(a.connection.chosenLength, "used by a's passcode")
        XCTAssertNotNil(a.connection.proof)
        XCTAssertNil(b.connection.proof)
        for other in [b, nil] {  // b, and the handle's own state: no proof
            current.value = other
            XCTAssertThrowsError(try s.set(.autoLockSeconds, to: 3600)) {
                guard case .proofRequired = $0 as? PasscodeError else { return XCTFail("\($0)") }
            }
        }
        current.value = a
        try s.set(.autoLockSeconds, to: 3600)
        XCTAssertEqual(try s.get(.autoLockSeconds), 3600)
    }

    func testDisablingFromSettingsNeedsThePasscodeAndKeepsIt() throws {
        let (s, _) = try makeStore(clock: clock)
        try s.setPasscode(secret(good1))
        XCTAssertThrowsError(try s.set(.lockEnabled, to: 0))
        XCTAssertThrowsPasscodeError(.wrongPasscode, try s.disable(current: secret(good2)))
        XCTAssertTrue(try s.isLockEnabled())
        try s.disable(current: secret(good1))
        try s.set(.lockEnabled, to: 1)
        XCTAssertNoThrow(try s.verify(secret(good1)))
    }
}

func readAll(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { return [] }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return out
}

func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, hay.count >= needle.count else { return false }
    for i in 0...(hay.count - needle.count) where hay[i] == needle[0] {
        if Array(hay[i..<(i + needle.count)]) == needle { return true }
    }
    return false
}

final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
