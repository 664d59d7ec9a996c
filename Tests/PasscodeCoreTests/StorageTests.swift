import XCTest
@testable import PasscodeCore

/// The storage layer's own promises: every row has one name, a record not stored reads as its
/// defaults, and the lists of tables agree with the schema.
final class StorageTests: XCTestCase {
    /// Two fields (or a field and a one-off row) with one name would read and write one row.
    func testEveryStateRowHasItsOwnName() {
        let stateKeys = StateKey.rowNames
        XCTAssertEqual(Set(stateKeys).count, stateKeys.count, "a state row name is used twice: \(stateKeys)")
        let settingKeys = Setting.allCases.map(\.key) + [CustomScheduleRow.key]
        XCTAssertEqual(Set(settingKeys).count, settingKeys.count, "a setting row name is used twice: \(settingKeys)")
    }

    /// A record whose rows are not stored reads as its `init()` (the one place its defaults are).
    func testAnEmptyStoreReadsEveryRecordAsItsDefaults() throws {
        let (s, _) = try makeStore(clock: TestClock())
        try s.read { () throws(PasscodeError) in
            XCTAssertEqual(try s.db.load(AttemptState.self), AttemptState())
            XCTAssertEqual(try s.db.load(LockState.self), LockState())
            XCTAssertEqual(try s.db.load(BiometricState.self), BiometricState())
            XCTAssertEqual(try s.db.load(KeyState.self), KeyState())
            XCTAssertEqual(try s.db.load(TPMState.self), TPMState())
        }
        XCTAssertEqual(LockState().backgroundMs, -1, "not in the background")
        XCTAssertNil(BiometricState().lastPasscodeEntry, "never entered")
    }

    /// Deleting the account empties `Schema.tables`, and the MAC covers `securityQueries`: both
    /// must name every table the schema makes, so that a new table is neither kept nor unsealed.
    func testTheTableListsNameEveryTableOfTheSchema() throws {
        let (s, _) = try makeStore(clock: TestClock())
        let made = try s.read { () throws(PasscodeError) in
            try s.db.database.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].text }
        }
        XCTAssertEqual(Set(Schema.tables), Set(made))
        XCTAssertEqual(Set(Storage.securityQueries.map(\.table)), Set(made))
        XCTAssertEqual(Storage.securityQueries.map(\.table).count, made.count)
    }

    /// The one-off rows are written and read through their `StateKey`, and `integrity_mac` is the
    /// one row the MAC does not cover.
    func testOneOffRowsAndTheMACsOwnRow() throws {
        let (s, _) = try makeStore(clock: TestClock())
        try s.write { () throws(PasscodeError) in
            XCTAssertFalse(try s.db.hasState(.wipePending))
            try s.db.putState(.wipePending, .int(1))
            XCTAssertEqual(try s.db.stateValue(.wipePending), .int(1))
            let before = try s.db.securityRows(version: 2)
            try s.db.putState(.integrityMac, .blob([1, 2, 3]))
            XCTAssertEqual(try s.db.securityRows(version: 2), before, "the MAC's own row is not covered")
            try s.db.deleteState(.wipePending)
            XCTAssertNil(try s.db.stateValue(.wipePending))
            XCTAssertNotEqual(try s.db.securityRows(version: 2), before, "every other state row is")
        }
    }
}
