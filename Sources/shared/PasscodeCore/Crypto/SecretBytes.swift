// A buffer for passcode digits and reset codes, wiped when it is released.

/// Secret bytes (passcode digits, reset codes, peppers) in memory from `sodium_malloc`,
/// wiped with `sodium_memzero` when the last reference goes. The bytes are reached only
/// inside closures; no Swift `String` ever holds a secret.
public final class SecretBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// A zero-filled buffer of `count` bytes.
    public init(count: Int) {
        buffer = Sodium.allocate(count)
        Sodium.wipe(buffer)
    }

    /// A copy of `bytes`.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if bytes.count > 0 { buffer.copyMemory(from: bytes) }
    }

    /// A copy of `array`; the caller wipes its own array.
    public convenience init(_ array: [UInt8]) {
        self.init(count: array.count)
        array.withUnsafeBytes { if $0.count > 0 { buffer.copyMemory(from: $0) } }
    }

    deinit { Sodium.release(buffer) }

    public var count: Int { buffer.count }

    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(buffer))
    }

    func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(buffer)
    }

    /// Whether every byte is an ASCII digit.
    public var isAllDigits: Bool {
        withBytes { b in b.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }

    /// The digit values (0-9), for the weak-passcode rules. Wipe the result after use.
    func digitValues() -> [UInt8] {
        withBytes { b in b.map { $0 &- 0x30 } }
    }

    /// A copy in its own secret buffer (each owner wipes its own).
    func copy() -> SecretBytes {
        withBytes { SecretBytes(copying: $0) }
    }

    /// `count` random bytes from libsodium.
    static func random(_ count: Int) -> SecretBytes {
        let out = SecretBytes(count: count)
        out.withMutableBytes { Sodium.fillRandom($0) }
        return out
    }

    /// Byte-wise equality in constant time (for equal lengths).
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withBytes { a in other.withBytes { b in Sodium.constantTimeEqual(a, b) } }
    }
}

extension SecretBytes {
    /// Lends the buffer to a host callback (the C layer), which must not keep it.
    public func withMutableBytesForCaller<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withMutableBytes(body)
    }
}
