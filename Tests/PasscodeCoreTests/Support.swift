import Glibc
import XCTest
@testable import PasscodeCore

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = Mutex()
    private var reading = ClockReading(bootMs: 1_000_000, wallMs: 1_700_000_000_000, bootID: 7)
    var now: ClockReading { lock.withLock { reading } }
    /// Time passes: both clocks move.
    func advance(seconds: Int64) { advance(ms: seconds * 1000) }
    func advance(ms: Int64) { lock.withLock { reading.bootMs += ms; reading.wallMs += ms } }
    func jumpWall(seconds: Int64) { lock.withLock { reading.wallMs += seconds * 1000 } }
    func reboot() { lock.withLock { reading.bootID += 1; reading.bootMs = 3000 } }
}

func secret(_ s: String) -> SecretBytes { SecretBytes(Array(s.utf8)) }

/// A fresh store in a temporary folder, with cheap Argon2id and the test clock.
func makeStore(clock: TestClock, file: String = "store.db", dir: String? = nil, pepper: SecretBytes? = nil,
               allowWeak: Bool = false) throws -> (PasscodeStore, String) {
    let folder = dir ?? makeTempDir()
    var o = StoreOptions()
    o.cost = HashCost(opsLimit: 1, memLimit: 8192)
    o.clock = { clock.now }
    o.pepper = pepper
    o.allowWeak = allowWeak
    let path = folder + "/" + file
    return (try PasscodeStore(path: path, options: o), path)
}

func reopen(_ path: String, clock: TestClock) throws -> PasscodeStore {
    var o = StoreOptions()
    o.cost = HashCost(opsLimit: 1, memLimit: 8192)
    o.clock = { clock.now }
    return try PasscodeStore(path: path, options: o)
}

func makeTempDir() -> String {
    var template = Array("/tmp/passcode-swift-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

let good1 = "386491", good2 = "915372", good3 = "502817"

func XCTAssertThrowsPasscodeError<T>(_ expected: PasscodeError, _ body: @autoclosure () throws -> T,
                                  file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got success", file: file, line: line)
    } catch let e as PasscodeError {
        XCTAssertEqual(e, expected, file: file, line: line)
    } catch {
        XCTFail("unexpected \(error)", file: file, line: line)
    }
}
