// The one place that talks to libsodium: hashing, random numbers, wiping, comparing.
internal import CSodium

/// Argon2id cost parameters, as libsodium names them.
public struct HashCost: Equatable, Sendable {
    public var opsLimit: UInt64
    public var memLimit: Int

    public init(opsLimit: UInt64, memLimit: Int) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// libsodium's INTERACTIVE preset (t=2, 64 MiB): the default.
    public static var interactive: HashCost {
        HashCost(opsLimit: UInt64(csodium_opslimit_interactive()),
                 memLimit: csodium_memlimit_interactive())
    }
    /// libsodium's MODERATE preset (t=3, 256 MiB).
    public static var moderate: HashCost {
        HashCost(opsLimit: UInt64(csodium_opslimit_moderate()),
                 memLimit: csodium_memlimit_moderate())
    }
    /// libsodium's SENSITIVE preset (t=4, 1 GiB).
    public static var sensitive: HashCost {
        HashCost(opsLimit: UInt64(csodium_opslimit_sensitive()),
                 memLimit: csodium_memlimit_sensitive())
    }

    /// Whether libsodium accepts these values for Argon2id.
    public var isValid: Bool {
        opsLimit >= UInt64(csodium_opslimit_min()) && opsLimit <= UInt64(csodium_opslimit_max())
            && memLimit >= csodium_memlimit_min() && memLimit <= csodium_memlimit_max()
    }
}

public enum Sodium {
    /// `sodium_init`, run once (Swift initialises a static `let` exactly once, thread-safely).
    private static let initialized: Bool = sodium_init() >= 0

    /// Makes sure libsodium is initialised; every entry point that needs it calls this.
    public static func initialize() -> Bool { initialized }

    /// Size of a hash string buffer (`crypto_pwhash_STRBYTES`).
    static var hashStringBytes: Int { csodium_strbytes() }

    /// Hashes `secret` with Argon2id into the standard `$argon2id$v=19$...` string.
    static func hash(_ secret: SecretBytes, cost: HashCost) throws(PasscodeError) -> String {
        var out = [CChar](repeating: 0, count: hashStringBytes)
        let rc = secret.withBytes { bytes in
            crypto_pwhash_str(&out, bytes.baseAddress!.assumingMemoryBound(to: CChar.self),
                              UInt64(bytes.count), cost.opsLimit, cost.memLimit)
        }
        guard rc == 0 else { throw .outOfMemory("Argon2id could not allocate its memory") }
        return out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Checks `secret` against a stored hash string; constant time in the secret.
    static func verify(_ secret: SecretBytes, hash: String) -> Bool {
        hash.withCString { h in
            secret.withBytes { bytes in
                crypto_pwhash_str_verify(h, bytes.baseAddress!.assumingMemoryBound(to: CChar.self),
                                         UInt64(bytes.count)) == 0
            }
        }
    }

    /// Whether `hash` was made with other parameters than `cost` (or is not Argon2id).
    static func needsRehash(_ hash: String, cost: HashCost) -> Bool {
        hash.withCString { crypto_pwhash_str_needs_rehash($0, cost.opsLimit, cost.memLimit) != 0 }
    }

    /// Keyed BLAKE2b-256 of `secret` under `key` (the pepper), into a new secret buffer.
    static func keyedHash(_ secret: SecretBytes, key: SecretBytes) -> SecretBytes {
        let out = SecretBytes(count: 32)
        out.withMutableBytes { o in
            secret.withBytes { m in
                key.withBytes { k in
                    _ = crypto_generichash(o.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                                           m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count),
                                           k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
                }
            }
        }
        return out
    }

    /// BLAKE2b of public bytes, keyed with a public context (names, not secrets).
    static func publicHash(_ message: [UInt8], key: [UInt8], count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        _ = crypto_generichash(&out, count, message, UInt64(message.count), key, key.count)
        return out
    }

    /// Keyed BLAKE2b-256 of `message` under `key`, as plain bytes (for non-secret fingerprints).
    static func mac(_ message: SecretBytes, key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        message.withBytes { m in
            _ = crypto_generichash(&out, 32, m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count),
                                   key, key.count)
        }
        return out
    }

    /// Keyed BLAKE2b-256 of a fingerprint together with the hash it was wrong against.
    static func macOf(_ fingerprint: [UInt8], hash: String, key: [UInt8]) -> [UInt8] {
        var message = fingerprint + Array(hash.utf8)
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, message, UInt64(message.count), key, key.count)
        wipe(&message)
        return out
    }

    /// Argon2id (`crypto_pwhash`) of `secret` with `salt`: 32 key bytes in secret memory. Throws
    /// `outOfMemory` when Argon2id cannot allocate its memory.
    static func deriveKey(_ secret: SecretBytes, salt: [UInt8], cost: HashCost) throws(PasscodeError) -> SecretBytes {
        precondition(salt.count == saltBytes)
        let out = SecretBytes(count: keyBytes)
        let rc = out.withMutableBytes { o in
            secret.withBytes { s in
                crypto_pwhash(o.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(o.count),
                              s.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(s.count),
                              salt, cost.opsLimit, cost.memLimit, crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard rc == 0 else { throw .outOfMemory("Argon2id could not allocate its memory") }
        return out
    }

    /// Argon2id salt size (`crypto_pwhash_SALTBYTES`, 16).
    static var saltBytes: Int { Int(crypto_pwhash_SALTBYTES) }
    /// Key size of every symmetric key here (32).
    public static let keyBytes = 32
    /// XChaCha20-Poly1305 nonce and tag sizes (24 and 16).
    static var nonceBytes: Int { Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES) }
    static var tagBytes: Int { Int(crypto_aead_xchacha20poly1305_ietf_ABYTES) }

    /// XChaCha20-Poly1305 of `message` under `key` with a random nonce, as nonce || ciphertext || tag.
    static func wrap(_ message: SecretBytes, key: SecretBytes, ad: [UInt8]) -> [UInt8] {
        var out = randomBytes(nonceBytes) + [UInt8](repeating: 0, count: message.count + tagBytes)
        let n = nonceBytes
        out.withUnsafeMutableBytes { o in
            ad.withUnsafeBytes { a in
                message.withBytes { m in
                    seal(m, ad: a, nonce: UnsafeRawBufferPointer(rebasing: o[..<n]), key: key,
                         into: UnsafeMutableRawBufferPointer(rebasing: o[n...]))
                }
            }
        }
        return out
    }

    /// Opens what `wrap` made; nil when the key is wrong or anything was changed.
    static func unwrap(_ blob: [UInt8], key: SecretBytes, ad: [UInt8]) -> SecretBytes? {
        guard blob.count >= nonceBytes + tagBytes else { return nil }
        let out = SecretBytes(count: blob.count - nonceBytes - tagBytes)
        let n = nonceBytes
        let ok = out.withMutableBytes { o in
            blob.withUnsafeBytes { b in
                ad.withUnsafeBytes { a in
                    open(UnsafeRawBufferPointer(rebasing: b[n...]), ad: a, nonce: UnsafeRawBufferPointer(rebasing: b[..<n]),
                         key: key, into: o)
                }
            }
        }
        return ok ? out : nil
    }

    /// XChaCha20-Poly1305 in place for caller buffers: `out` gets ciphertext || tag.
    static func seal(_ message: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
                     key: SecretBytes, into out: UnsafeMutableRawBufferPointer) {
        key.withBytes { k in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                out.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                ad.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ad.count), nil,
                nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The inverse of `seal`; false when the tag does not match (nothing is then left in `out`).
    static func open(_ sealed: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
                     key: SecretBytes, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let rc = key.withBytes { k in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                out.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil,
                sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                ad.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ad.count),
                nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        if rc != 0, out.count > 0 { wipe(out) }
        return rc == 0
    }

    /// A subkey of `key` for one purpose (`crypto_kdf_derive_from_key`; `context` is 8 characters).
    static func subkey(of key: SecretBytes, id: UInt64, context: String, count: Int = keyBytes) -> SecretBytes {
        precondition(context.utf8.count == 8)
        let out = SecretBytes(count: count)
        out.withMutableBytes { o in
            key.withBytes { k in
                _ = crypto_kdf_derive_from_key(o.baseAddress!.assumingMemoryBound(to: UInt8.self), count, id, context,
                                               k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return out
    }

    /// Standard base64 without padding (`sodium_bin2base64`).
    static func base64(_ bytes: [UInt8]) -> String {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
        var out = [CChar](repeating: 0, count: csodium_base64_encoded_len(bytes.count, variant))
        _ = sodium_bin2base64(&out, out.count, bytes, bytes.count, variant)
        return out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Decodes what `base64` made; nil for anything else (or not exactly `count` bytes).
    static func fromBase64(_ text: Substring, count: Int) -> [UInt8]? {
        guard let out = fromBase64(text, atMost: count), out.count == count else { return nil }
        return out
    }

    /// Decodes what `base64` made, of any length up to what `text` can hold; nil for anything else.
    static func fromBase64(_ text: Substring) -> [UInt8]? {
        fromBase64(text, atMost: text.utf8.count * 3 / 4 + 1)
    }

    private static func fromBase64(_ text: Substring, atMost count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var written = 0
        let text = String(text)
        let rc = text.withCString { t in
            sodium_base642bin(&out, out.count, t, text.utf8.count, nil, &written, nil,
                              Int32(sodium_base64_VARIANT_ORIGINAL_NO_PADDING))
        }
        return rc == 0 ? Array(out.prefix(written)) : nil
    }

    /// Whether every one of `count` bytes is zero, in constant time (`sodium_is_zero`): the
    /// service client's check of a key passcoded sent, without its own import of libsodium.
    public static func isAllZero(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        sodium_is_zero(bytes.assumingMemoryBound(to: UInt8.self), count) == 1
    }

    /// `count` bytes from libsodium's random source.
    static func randomBytes(_ count: Int) -> [UInt8] {
        _ = initialize()
        var out = [UInt8](repeating: 0, count: count)
        randombytes_buf(&out, count)
        return out
    }

    /// Fills a buffer (secret memory) from libsodium's random source.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        _ = initialize()
        if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }

    /// SHA-256 of public data (TPM names and policy digests; never of a secret).
    package static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&out, data, UInt64(data.count))
        return out
    }

    /// A uniform random number in `0..<upperBound`.
    static func randomUniform(_ upperBound: UInt32) -> UInt32 {
        randombytes_uniform(upperBound)
    }

    /// Constant-time equality of two equally long byte arrays (`sodium_memcmp`).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return sodium_memcmp(a, b, a.count) == 0
    }

    /// Constant-time equality of two equally long buffers (`sodium_memcmp`).
    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    static func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        // sodium_malloc: guard pages and mlock; never returns memory another secret used unwiped.
        guard initialize() else { fatalError("libpasscode: libsodium could not be initialised") }
        guard let p = sodium_malloc(max(count, 1)) else { fatalError("libpasscode: out of memory") }
        return UnsafeMutableRawBufferPointer(start: p, count: count)
    }

    static func release(_ buffer: UnsafeMutableRawBufferPointer) {
        sodium_free(buffer.baseAddress)  // wipes before freeing
    }

    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
    }

    /// Wipes a Swift byte array in place (for short-lived copies of secrets).
    static func wipe(_ array: inout [UInt8]) {
        array.withUnsafeMutableBytes { if let b = $0.baseAddress { sodium_memzero(b, $0.count) } }
    }
}
