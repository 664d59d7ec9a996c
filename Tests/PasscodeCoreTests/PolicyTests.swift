import XCTest
@testable import PasscodeCore

final class PolicyTests: XCTestCase {
    func testPlaceholderRemovedLater() {}
}
