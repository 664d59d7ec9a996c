// The data key's wraps and the host's sealed boxes: the formats and the cryptography, with no
// store behind them (the store's use of them: Features/PasscodeStore+DataKey.swift).

/// The stored verifier of a passcode: Argon2id parameters, salt and the wrapped data key, in a
/// self-describing, versioned text: `$pcwrap$v=1$argon2id,ops=<n>,mem=<bytes>$<salt>$<wrap>`
/// (standard base64 without padding; the wrap is nonce || key || tag, authenticated together
/// with everything before the last `$`). A store bound to a TPM (TPM.swift) writes
/// `...,mem=<bytes>,tpm$<salt>$<wrap>$<unique>$<private>`: the KEK then needs the secret the TPM
/// unseals for the passcode's authorization, so no guess can be checked without that TPM.
/// Provisioned (a PIN_FAIL index holds the guess limit): `...,tpmpin$...$<private>$<index, 8 hex digits>`.
struct KeyWrap: Equatable {
    static let prefix = "$pcwrap$v=1$"
    let cost: HashCost
    let salt: [UInt8]
    let sealed: [UInt8]
    /// The TPM's sealed secret, for a bound store.
    let tpm: TPMSealed?

    static var sealedBytes: Int { Sodium.nonceBytes + Sodium.keyBytes + Sodium.tagBytes }

    private static func header(cost: HashCost, salt: [UInt8], tpm: String) -> String {
        "\(prefix)argon2id,ops=\(cost.opsLimit),mem=\(cost.memLimit)\(tpm)$\(Sodium.base64(salt))"
    }

    private static func tpmField(_ sealed: TPMSealed?) -> String {
        sealed == nil ? "" : sealed?.pinIndex == nil ? ",tpm" : ",tpmpin"
    }

    private var header: String { KeyWrap.header(cost: cost, salt: salt, tpm: KeyWrap.tpmField(tpm)) }

    var encoded: String {
        var text = header + "$" + Sodium.base64(sealed)
        if let tpm { text += "$" + Sodium.base64(tpm.unique) + "$" + Sodium.base64(tpm.privateBlob) }
        if let index = tpm?.pinIndex {
            let hex = String(index, radix: 16)
            text += "$" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        }
        return text
    }

    /// Wraps `dataKey` under the passcode: one Argon2id evaluation with a fresh salt; with
    /// `device`, also a new secret sealed in that TPM. Returns the KEK too (for the session keyring).
    /// With a provisioned `device` and a `guessLimit`, the secret is sealed behind a new PIN_FAIL
    /// index with that limit (TPM.swift, "The guess limit").
    static func makeReturningKEK(_ input: SecretBytes, dataKey: SecretBytes, cost: HashCost,
                                 device: TPMDevice? = nil, guessLimit: Int? = nil) throws(PasscodeError) -> (wrap: KeyWrap, kek: SecretBytes) {
        let salt = Sodium.randomBytes(Sodium.saltBytes)
        let stretched = try Sodium.deriveKey(input, salt: salt, cost: cost)
        var kek = stretched
        var sealedSecret: TPMSealed?
        if let device {
            let secret = SecretBytes.random(Sodium.keyBytes)
            let auth = TPMKeys.auth(stretched)
            var pinIndex: UInt32?
            if device.provisioned, let limit = guessLimit, limit > 0 {
                pinIndex = try device.definePin(auth: auth, limit: UInt32(clamping: limit))
            }
            sealedSecret = try device.seal(secret, auth: auth, pinIndex: pinIndex)
            kek = TPMKeys.kek(stretched, secret: secret)
        }
        let ad = Array(header(cost: cost, salt: salt, tpm: tpmField(sealedSecret)).utf8)
        return (KeyWrap(cost: cost, salt: salt, sealed: Sodium.wrap(dataKey, key: kek, ad: ad), tpm: sealedSecret), kek)
    }

    /// One Argon2id evaluation (and, bound, one unseal by the TPM, which counts a wrong one
    /// against its lockout): the data key and the KEK when `input` is the passcode's, else nil.
    func open(_ input: SecretBytes, device: TPMDevice?) throws(PasscodeError) -> (key: SecretBytes, kek: SecretBytes)? {
        let stretched = try Sodium.deriveKey(input, salt: salt, cost: cost)
        var kek = stretched
        if let tpm {
            guard let device else { throw PasscodeError.tpmRequired }
            guard let secret = try device.unseal(tpm, auth: TPMKeys.auth(stretched)) else { return nil }
            kek = TPMKeys.kek(stretched, secret: secret)
        }
        guard let key = open(kek: kek) else { return nil }
        return (key, kek)
    }

    /// The data key, when `kek` opens this wrap (no Argon2id: a KEK from the session keyring).
    func open(kek: SecretBytes) -> SecretBytes? {
        guard kek.count == Sodium.keyBytes,
              let key = Sodium.unwrap(sealed, key: kek, ad: Array(header.utf8)),
              key.count == Sodium.keyBytes else { return nil }
        return key
    }

    /// The name of this wrap's entry in the session keyring.
    var sessionName: String { SessionKeyring.name(salt: salt) }

    /// Parses a stored verifier. The file is input: anything malformed, or a cost above `limit`
    /// (a hostile value would make every attempt take hours or all memory), is `corrupt`.
    static func parse(_ text: String, limit: HashCost) throws(PasscodeError) -> KeyWrap {
        let damaged = PasscodeError.corrupt("the store's passcode verifier is damaged")
        guard text.hasPrefix(prefix) else { throw damaged }
        let parts = text.dropFirst(prefix.count).split(separator: "$", omittingEmptySubsequences: false)
        let fields = parts.isEmpty ? [] : parts[0].split(separator: ",", omittingEmptySubsequences: false)
        let pin = fields.count == 4 && fields[3] == "tpmpin"
        let bound = fields.count == 4 && (fields[3] == "tpm" || pin)
        guard parts.count == (pin ? 6 : bound ? 5 : 3), fields.count == (bound ? 4 : 3), fields[0] == "argon2id",
              let ops = number(fields[1], "ops="), let memBytes = number(fields[2], "mem="), let mem = Int(exactly: memBytes),
              let salt = Sodium.fromBase64(parts[1], count: Sodium.saltBytes),
              let sealed = Sodium.fromBase64(parts[2], count: sealedBytes) else { throw damaged }
        var tpm: TPMSealed?
        if bound {
            guard let unique = Sodium.fromBase64(parts[3], count: TPMSealed.uniqueBytes),
                  parts[4].utf8.count <= (TPMSealed.maxPrivateBytes + 2) / 3 * 4,
                  let blob = Sodium.fromBase64(parts[4]), !blob.isEmpty, blob.count <= TPMSealed.maxPrivateBytes else { throw damaged }
            tpm = TPMSealed(unique: unique, privateBlob: blob)
            if pin {
                guard parts[5].utf8.count == 8, parts[5].utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }),
                      let index = UInt32(parts[5], radix: 16), index >= TPM2.nvFirst, index < TPM2.nvFirst + TPM2.nvSpan else { throw damaged }
                tpm?.pinIndex = index
            }
        }
        let cost = HashCost(opsLimit: ops, memLimit: mem)
        try check(cost, limit: limit)
        return KeyWrap(cost: cost, salt: salt, sealed: sealed, tpm: tpm)
    }

    /// The cost a verifier in the file may ask for: the host's, or libsodium's SENSITIVE preset.
    static func check(_ cost: HashCost, limit: HashCost) throws(PasscodeError) {
        guard cost.isValid else { throw PasscodeError.corrupt("the store's passcode verifier has Argon2id parameters outside libsodium's limits") }
        guard cost.opsLimit <= max(limit.opsLimit, HashCost.sensitive.opsLimit),
              cost.memLimit <= max(limit.memLimit, HashCost.sensitive.memLimit) else {
            throw PasscodeError.corrupt("the store's passcode verifier asks for more Argon2id work (ops \(cost.opsLimit), \(cost.memLimit) bytes) than this library allows")
        }
    }

    /// A decimal number after `tag`, digits only, without overflow.
    static func number(_ field: Substring, _ tag: String) -> UInt64? {
        guard field.hasPrefix(tag) else { return nil }
        let digits = field.dropFirst(tag.count)
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return UInt64(digits)
    }
}

/// What the `verifier` column holds: a wrap, or (until the next successful verify migrates it)
/// the plain `$argon2id$` hash of a store made before schema v4, which protects no key.
enum Verifier {
    case wrapped(KeyWrap)
    case legacy(String)

    static func parse(_ text: String, limit: HashCost) throws(PasscodeError) -> Verifier {
        if text.hasPrefix(KeyWrap.prefix) { return .wrapped(try KeyWrap.parse(text, limit: limit)) }
        guard text.hasPrefix("$argon2id$"), text.utf8.count < Sodium.hashStringBytes, !text.utf8.contains(0) else {
            throw PasscodeError.corrupt("the store's passcode verifier is damaged")
        }
        // "$argon2id$v=19$m=<KiB>,t=<passes>,p=1$...": the same ceiling as for wraps.
        let parts = text.split(separator: "$")
        let params = parts.count > 2 ? parts[2].split(separator: ",") : []
        guard params.count == 3, let m = KeyWrap.number(params[0], "m="), let t = KeyWrap.number(params[1], "t="),
              m <= UInt64(Int.max / 1024) else {
            throw PasscodeError.corrupt("the store's passcode verifier is damaged")
        }
        try KeyWrap.check(HashCost(opsLimit: t, memLimit: Int(m) * 1024), limit: limit)
        return .legacy(text)
    }
}

/// The copy of the data key wrapped under a host's recovery key (table `recovery`).
enum RecoveryWrap {
    private static let ad = Array("libpasscode recovery wrap v1".utf8)

    /// The recovery key is not used directly: a keyed BLAKE2b over a fixed context.
    private static func kek(_ recoveryKey: SecretBytes) -> SecretBytes {
        Sodium.keyedHash(SecretBytes(Array("libpasscode recovery key v1".utf8)), key: recoveryKey)
    }

    static func make(_ dataKey: SecretBytes, recoveryKey: SecretBytes) -> [UInt8] {
        Sodium.wrap(dataKey, key: kek(recoveryKey), ad: ad)
    }

    static func open(_ blob: [UInt8], recoveryKey: SecretBytes) -> SecretBytes? {
        guard blob.count == KeyWrap.sealedBytes, let key = Sodium.unwrap(blob, key: kek(recoveryKey), ad: ad),
              key.count == Sodium.keyBytes else { return nil }
        return key
    }
}

/// The format `passcode_seal` writes: "PCS" and version 1, the key's 8-byte id, a random
/// 24-byte nonce, then the XChaCha20-Poly1305 ciphertext and its 16-byte tag. The first 12
/// bytes are authenticated with the text. The sealing key and the id are subkeys of the data key.
public enum SealedBox {
    static let magic: [UInt8] = [0x50, 0x43, 0x53, 0x01]
    static let keyIDBytes = 8
    static var adBytes: Int { magic.count + keyIDBytes }
    static var headerBytes: Int { adBytes + Sodium.nonceBytes }
    public static var overhead: Int { headerBytes + Sodium.tagBytes }
    /// The longest data `passcode_seal` takes: 2^32 bytes (4 GiB), well inside what
    /// XChaCha20-Poly1305 allows; a longer length is a caller's bug, refused before any byte is read.
    public static let maxPlain: UInt = 1 << 32
}

extension SealedBox {
    /// Encrypts `plain` into `out` with `held`'s sealing subkey; returns the sealed length,
    /// `plain.count + overhead`, or throws `bufferTooSmall` with nothing written.
    static func seal(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer, with held: HeldKey) throws(PasscodeError) -> Int {
        let total = plain.count + overhead
        guard out.count >= total else { throw PasscodeError.bufferTooSmall(needed: total) }
        for (i, b) in magic.enumerated() { out[i] = b }
        for (i, b) in held.keyID.enumerated() { out[magic.count + i] = b }
        let nonce = UnsafeMutableRawBufferPointer(rebasing: out[adBytes..<headerBytes])
        Sodium.fillRandom(nonce)
        Sodium.seal(plain, ad: UnsafeRawBufferPointer(rebasing: out[0..<adBytes]), nonce: UnsafeRawBufferPointer(nonce),
                    key: held.sealKey, into: UnsafeMutableRawBufferPointer(rebasing: out[headerBytes..<total]))
        return total
    }

    /// Decrypts what `seal` made with the same key into `out`; returns the plain length.
    static func open(_ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer, with held: HeldKey) throws(PasscodeError) -> Int {
        guard sealed.count >= overhead else {
            throw PasscodeError.badCiphertext("the sealed data is too short (\(sealed.count) bytes; at least \(overhead))")
        }
        guard sealed.prefix(3).elementsEqual(magic.prefix(3)) else {
            throw PasscodeError.badCiphertext("the data was not sealed by libpasscode")
        }
        guard sealed[3] == magic[3] else {
            throw PasscodeError.badCiphertext("the data was sealed in format version \(sealed[3]), which this libpasscode does not know")
        }
        guard sealed[magic.count..<adBytes].elementsEqual(held.keyID) else {
            throw PasscodeError.foreignCiphertext
        }
        let plainCount = sealed.count - overhead
        guard out.count >= plainCount else { throw PasscodeError.bufferTooSmall(needed: plainCount) }
        let ok = Sodium.open(UnsafeRawBufferPointer(rebasing: sealed[headerBytes...]),
                             ad: UnsafeRawBufferPointer(rebasing: sealed[0..<adBytes]),
                             nonce: UnsafeRawBufferPointer(rebasing: sealed[adBytes..<headerBytes]),
                             key: held.sealKey, into: UnsafeMutableRawBufferPointer(rebasing: out[0..<plainCount]))
        guard ok else { throw PasscodeError.badCiphertext("the sealed data was changed or damaged") }
        return plainCount
    }
}

/// The data key released to a handle outside the store's own (service mode's client, in the
/// host's process): it seals and opens with the same code as the store's handle (`SealedBox`).
public final class ReleasedKey: @unchecked Sendable {
    private let held: HeldKey

    /// Keeps a copy of `key` (the 32-byte data key) and derives its sealing subkey and id.
    public init(copying key: SecretBytes) { held = HeldKey(key) }

    /// A copy of the data key, for the caller's buffer.
    public func copyKey() -> SecretBytes { held.key.copy() }

    /// `PasscodeStore.seal` with this key (`passcode_seal`).
    public func seal(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        try SealedBox.seal(plain, into: out, with: held)
    }

    /// `PasscodeStore.unseal` with this key (`passcode_unseal`).
    public func unseal(_ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        try SealedBox.open(sealed, into: out, with: held)
    }
}

/// The data key as this handle holds it, with its sealing subkey and id.
struct HeldKey {
    let key: SecretBytes
    let sealKey: SecretBytes
    let keyID: [UInt8]
    /// Released (the app is unlocked) or only held for a biometric unlock.
    var released: Bool
    /// Whether this handle already recorded that the host uses the key (`KeyState`).
    var useRecorded = false
    /// The key that opens the store's wrap and its session keyring name, when this handle
    /// learned it (a passcode entry, or the keyring itself).
    var session: SessionEntry?

    init(_ key: SecretBytes) {
        self.key = key.copy()
        sealKey = Sodium.subkey(of: key, id: 1, context: "pcseal01")
        keyID = Sodium.subkey(of: key, id: 2, context: "pcseal01", count: 16).withBytes { Array($0.prefix(SealedBox.keyIDBytes)) }
        released = true
    }
}
