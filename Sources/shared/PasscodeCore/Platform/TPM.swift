// Binding a store to the machine's TPM 2.0 (passcode-tpm(7)).
//
// tpm2-tss is loaded with dlopen the first time a host asks for the TPM, as systemd does, so
// libpasscode.so needs none of it otherwise. Per operation the library connects through the TCTI
// the host named, derives the storage root key (an ECC P-256 primary under the owner hierarchy,
// the TCG's SRK template: the same key every time on the same TPM, a different one after the TPM
// is cleared), and, in a salted HMAC session with parameter encryption, either seals a random
// 32-byte secret under it or loads and unseals one. The sealed object's authorization comes from
// the passcode (after Argon2id), without `noDA`: every wrong guess counts against the TPM's own
// dictionary-attack lockout. A monotonic NV counter (TPM2_NT_COUNTER) counts attempts, so that an
// older copy of the file is seen (TPMState below).
//
// Provisioned (the owner authorization set, and given to the library in a root-only file): the
// storage key and every NV index need that authorization; a new passcode gets a PIN_FAIL index
// (NO_DA, owner-written) whose authorization is the passcode's and whose pinLimit is the policy's
// guess limit, and the sealed object has no authorization of its own, only a policy:
// TPM2_PolicySecret on that index. Every guess, the library's or anyone's, is then counted by the
// index, which no DA lockout reset touches and nobody without the owner authorization rewrites.

import CPasscodeShims
import CTss2

/// tpm2-tss's constants this file uses (tss2_tpm2_types.h writes them as casts, spelled out here).
enum TPM2 {
    static let algSHA256: UInt16 = 0x000B, algAES: UInt16 = 0x0006, algCFB: UInt16 = 0x0043
    static let algNull: UInt16 = 0x0010, algECC: UInt16 = 0x0023, algKeyedHash: UInt16 = 0x0008
    static let eccNistP256: UInt16 = 0x0003
    static let fixedTPM: UInt32 = 0x2, fixedParent: UInt32 = 0x10, sensitiveDataOrigin: UInt32 = 0x20
    static let userWithAuth: UInt32 = 0x40, noDA: UInt32 = 0x400, restricted: UInt32 = 0x10000, decrypt: UInt32 = 0x20000
    static let sessionContinue: UInt8 = 0x01, sessionDecrypt: UInt8 = 0x20, sessionEncrypt: UInt8 = 0x40
    static let trNone: ESYS_TR = 0xfff, trPassword: ESYS_TR = 0x0ff, trOwner: ESYS_TR = 0x101
    static let nvAuthWrite: UInt32 = 0x4, nvAuthRead: UInt32 = 0x40000, nvNoDA: UInt32 = 0x2000000
    static let nvOwnerWrite: UInt32 = 0x2, nvOwnerRead: UInt32 = 0x20000, nvWritten: UInt32 = 0x2000_0000
    static let nvTypeCounter: UInt32 = 0x1 << 4, nvTypePinFail: UInt32 = 0x8 << 4
    /// The attempt counter: unprovisioned, its own (empty) authorization increments it; provisioned
    /// only the owner's, which the library alone holds.
    static let counterAttributes = nvTypeCounter | nvAuthWrite | nvAuthRead | nvNoDA
    static let ownerCounterAttributes = nvTypeCounter | nvOwnerWrite | nvAuthRead | nvNoDA
    /// The guess limit (provisioned): a PIN_FAIL index, outside the DA lockout, written and read
    /// by the owner only; its own authorization is the passcode's.
    static let pinAttributes = nvTypePinFail | nvOwnerWrite | nvOwnerRead | nvNoDA
    static let ccPolicySecret: UInt32 = 0x151
    static let seHMAC: UInt8 = 0x00, sePolicy: UInt8 = 0x01
    static let capProperties: UInt32 = 6
    /// TPM2_PT_PERMANENT (its bits: ownerAuthSet 0x1, lockoutAuthSet 0x4), then, 14 on, the
    /// lockout counter, MAX_AUTH_FAIL, LOCKOUT_INTERVAL and LOCKOUT_RECOVERY.
    static let ptPermanent: UInt32 = 0x200, ptLockoutCounter: UInt32 = 0x200 + 14, ptMaxAuthFail: UInt32 = 0x200 + 15
    static let ptLockoutInterval: UInt32 = 0x200 + 16, ptLockoutRecovery: UInt32 = 0x200 + 17
    static let permanentOwnerAuthSet: UInt32 = 0x1, permanentLockoutAuthSet: UInt32 = 0x4
    /// NV indexes this library defines: the owner range, 0x01300000 plus 20 random bits.
    static let nvFirst: UInt32 = 0x0130_0000, nvSpan: UInt32 = 0x10_0000

    // Response codes (TPM layer): format 1 carries a parameter, handle or session number.
    static let rcAuthFail: UInt32 = 0x08E, rcBadAuth: UInt32 = 0x0A2, rcIntegrity: UInt32 = 0x09F
    static let rcBinding: UInt32 = 0x0A5, rcKey: UInt32 = 0x09C, rcHandle: UInt32 = 0x08B, rcValue: UInt32 = 0x084
    static let rcSize: UInt32 = 0x095, rcAuthUnavailable: UInt32 = 0x12F
    static let rcLockout: UInt32 = 0x921, rcNVDefined: UInt32 = 0x14C, rcNVUninitialized: UInt32 = 0x14A
    static let rcObjectMemory: UInt32 = 0x902, rcSessionMemory: UInt32 = 0x903
    static let rcRetry: UInt32 = 0x922, rcYielded: UInt32 = 0x908, rcTesting: UInt32 = 0x90A

    /// The TPM's own code of `rc` without the parameter, handle or session number; nil when the
    /// code comes from a software layer (TCTI, ESAPI).
    static func tpmCode(_ rc: UInt32) -> UInt32? {
        guard rc & 0xFFFF_0000 == 0 else { return nil }
        return rc & 0x80 != 0 ? (rc & 0xBF) : (rc & 0xFFF)
    }
}

/// tpm2-tss's functions, resolved once. A struct: a class whose throwing init throws after a
/// partial initialization leaks its memory in Embedded Swift.
struct TSSLibrary: @unchecked Sendable {
    typealias ESYS = OpaquePointer
    typealias RC = UInt32
    typealias Out<T> = UnsafeMutablePointer<UnsafeMutablePointer<T>?>?

    let tctiInitialize: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> RC
    let tctiFinalize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let initialize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, UnsafeMutablePointer<TSS2_ABI_VERSION>?) -> RC
    let finalize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let setAuth: @convention(c) (ESYS?, ESYS_TR, UnsafePointer<TPM2B_AUTH>?) -> RC
    let flush: @convention(c) (ESYS?, ESYS_TR) -> RC
    let createPrimary: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_SENSITIVE_CREATE>?,
                                       UnsafePointer<TPM2B_PUBLIC>?, UnsafePointer<TPM2B_DATA>?, UnsafePointer<TPML_PCR_SELECTION>?,
                                       UnsafeMutablePointer<ESYS_TR>?, Out<TPM2B_PUBLIC>, Out<TPM2B_CREATION_DATA>, Out<TPM2B_DIGEST>,
                                       Out<TPMT_TK_CREATION>) -> RC
    let create: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_SENSITIVE_CREATE>?,
                                UnsafePointer<TPM2B_PUBLIC>?, UnsafePointer<TPM2B_DATA>?, UnsafePointer<TPML_PCR_SELECTION>?,
                                Out<TPM2B_PRIVATE>, Out<TPM2B_PUBLIC>, Out<TPM2B_CREATION_DATA>, Out<TPM2B_DIGEST>,
                                Out<TPMT_TK_CREATION>) -> RC
    let load: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_PRIVATE>?, UnsafePointer<TPM2B_PUBLIC>?,
                              UnsafeMutablePointer<ESYS_TR>?) -> RC
    let unseal: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, Out<TPM2B_SENSITIVE_DATA>) -> RC
    let startAuthSession: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_NONCE>?, TPM2_SE,
                                          UnsafePointer<TPMT_SYM_DEF>?, TPMI_ALG_HASH, UnsafeMutablePointer<ESYS_TR>?) -> RC
    let sessionSetAttributes: @convention(c) (ESYS?, ESYS_TR, TPMA_SESSION, TPMA_SESSION) -> RC
    let nvDefine: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_AUTH>?, UnsafePointer<TPM2B_NV_PUBLIC>?,
                                  UnsafeMutablePointer<ESYS_TR>?) -> RC
    let nvIncrement: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR) -> RC
    let nvRead: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UInt16, UInt16, Out<TPM2B_MAX_NV_BUFFER>) -> RC
    let nvReadPublic: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, Out<TPM2B_NV_PUBLIC>, Out<TPM2B_NAME>) -> RC
    let nvUndefine: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR) -> RC
    let fromTPMPublic: @convention(c) (ESYS?, TPM2_HANDLE, ESYS_TR, ESYS_TR, ESYS_TR, UnsafeMutablePointer<ESYS_TR>?) -> RC
    let nvWrite: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_MAX_NV_BUFFER>?, UInt16) -> RC
    let policySecret: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_NONCE>?,
                                      UnsafePointer<TPM2B_DIGEST>?, UnsafePointer<TPM2B_NONCE>?, Int32, Out<TPM2B_TIMEOUT>,
                                      Out<TPMT_TK_AUTH>) -> RC
    let readPublic: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, Out<TPM2B_PUBLIC>, Out<TPM2B_NAME>, Out<TPM2B_NAME>) -> RC
    let getCapability: @convention(c) (ESYS?, ESYS_TR, ESYS_TR, ESYS_TR, TPM2_CAP, UInt32, UInt32, UnsafeMutablePointer<TPMI_YES_NO>?,
                                       Out<TPMS_CAPABILITY_DATA>) -> RC

    private static let lock = Mutex()
    nonisolated(unsafe) private static var loaded: TSSLibrary?

    /// The libraries, loaded on first use and kept for the life of the process.
    static func shared() throws(PasscodeError) -> TSSLibrary {
        try lock.withLock { () throws(PasscodeError) in
            if let loaded { return loaded }
            let library = try TSSLibrary()
            loaded = library
            return library
        }
    }

    private init() throws(PasscodeError) {
        // tpm2-tss prints every TPM error (a wrong guess is one) on stderr unless told otherwise;
        // a host that wants its log sets TSS2_LOG itself, before its first TPM use.
        setenv("TSS2_LOG", "all+none", 0)
        func open(_ name: String) throws(PasscodeError) -> UnsafeMutableRawPointer {
            guard let h = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let why = dlerror().map { String(cString: $0) } ?? name
                throw PasscodeError.tpmUnavailable("tpm2-tss is not installed (\(why)); install libtss2-esys-3.0.2-0 and libtss2-tctildr0")
            }
            return h
        }
        let esys = try open("libtss2-esys.so.0")
        let loader = try open("libtss2-tctildr.so.0")
        func symbol<T>(_ h: UnsafeMutableRawPointer, _ name: String, _: T.Type = T.self) throws(PasscodeError) -> T {
            guard let p = dlsym(h, name) else {
                throw PasscodeError.tpmUnavailable("tpm2-tss lacks \(name); libpasscode needs tpm2-tss 3.0 or later")
            }
            return unsafeBitCast(p, to: T.self)
        }
        tctiInitialize = try symbol(loader, "Tss2_TctiLdr_Initialize")
        tctiFinalize = try symbol(loader, "Tss2_TctiLdr_Finalize")
        initialize = try symbol(esys, "Esys_Initialize")
        finalize = try symbol(esys, "Esys_Finalize")
        free = try symbol(esys, "Esys_Free")
        setAuth = try symbol(esys, "Esys_TR_SetAuth")
        flush = try symbol(esys, "Esys_FlushContext")
        createPrimary = try symbol(esys, "Esys_CreatePrimary")
        create = try symbol(esys, "Esys_Create")
        load = try symbol(esys, "Esys_Load")
        unseal = try symbol(esys, "Esys_Unseal")
        startAuthSession = try symbol(esys, "Esys_StartAuthSession")
        sessionSetAttributes = try symbol(esys, "Esys_TRSess_SetAttributes")
        nvDefine = try symbol(esys, "Esys_NV_DefineSpace")
        nvIncrement = try symbol(esys, "Esys_NV_Increment")
        nvRead = try symbol(esys, "Esys_NV_Read")
        nvReadPublic = try symbol(esys, "Esys_NV_ReadPublic")
        nvUndefine = try symbol(esys, "Esys_NV_UndefineSpace")
        fromTPMPublic = try symbol(esys, "Esys_TR_FromTPMPublic")
        getCapability = try symbol(esys, "Esys_GetCapability")
        nvWrite = try symbol(esys, "Esys_NV_Write")
        policySecret = try symbol(esys, "Esys_PolicySecret")
        readPublic = try symbol(esys, "Esys_ReadPublic")
    }
}

/// A sealed secret as the store keeps it: the object's `unique` digest (the rest of its public
/// area is the fixed template below) and its private blob, opaque and integrity-protected by the TPM.
struct TPMSealed: Hashable {
    static let uniqueBytes = 32
    /// TPM2B_PRIVATE's buffer; a longer blob in the file is damage.
    static let maxPrivateBytes = MemoryLayout.size(ofValue: TPM2B_PRIVATE().buffer)
    let unique: [UInt8]
    let privateBlob: [UInt8]
    /// Provisioned: the PIN_FAIL index the object's policy (TPM2_PolicySecret) names; every
    /// guess goes through it. nil: the object's own authorization is the passcode's.
    var pinIndex: UInt32? = nil
}

/// The DA lockout of the TPM, as the TPM reports it.
struct TPMLockout {
    let failures: UInt32
    let maxFailures: UInt32
    let intervalSeconds: UInt32

    var active: Bool { maxFailures == 0 || failures >= maxFailures }
    /// An upper bound on the wait: one failure is forgotten every interval. 0 when the TPM
    /// forgets none by itself (an interval of 0: only its lockout authorization resets it).
    var seconds: Int64 { intervalSeconds == 0 ? 0 : Int64(failures &- maxFailures &+ 1) * Int64(intervalSeconds) }
}

/// What the TPM says of its own protection (TPM2_GetCapability, TPM2_PT_PERMANENT and the lockout
/// properties): whether owner and lockout authorizations are set, and its DA lockout.
struct TPMSettings {
    let ownerAuthSet: Bool
    let lockoutAuthSet: Bool
    let lockout: TPMLockout
    let lockoutRecoverySeconds: UInt32
}

/// One connection to the TPM, for one operation: opened, used, closed (deinit flushes what it loaded).
final class TPMDevice {
    private let tss: TSSLibrary
    private let tcti: String
    private var tctiContext: OpaquePointer?
    private var esys: OpaquePointer?
    private var primaryHandle: ESYS_TR = TPM2.trNone
    private var sessionHandle: ESYS_TR = TPM2.trNone
    /// What this connection loaded, each once: sealed objects (flushed at the end) and the
    /// attempt counters it looked up (checked to be ours).
    private var loaded: [TPMSealed: ESYS_TR] = [:]
    private var counters: [UInt32: (handle: ESYS_TR, ownerWrite: Bool)] = [:]
    /// The owner hierarchy's authorization (provisioned mode: read from the administrator's
    /// root-only file), nil when the library has none.
    private let ownerAuth: SecretBytes?
    /// Where `ownerAuth` comes from, for messages.
    private let ownerAuthSource: String

    /// Whether this connection holds the owner authorization: new passcodes then get a PIN_FAIL index.
    var provisioned: Bool { ownerAuth != nil }

    /// Connects: the throwing work is done before the object exists (a class whose throwing init
    /// throws after a partial initialization leaks its memory in Embedded Swift).
    static func open(tcti: String, ownerAuth: SecretBytes? = nil, source: String = "") throws(PasscodeError) -> TPMDevice {
        let tss = try TSSLibrary.shared()
        var tctiContext: OpaquePointer?
        var esys: OpaquePointer?
        var rc = tcti.withCString { tss.tctiInitialize($0, &tctiContext) }
        guard rc == 0 else { throw PasscodeError.tpmUnavailable("no TPM reachable through \"\(tcti)\" (tpm2-tss 0x\(hex(rc)))") }
        rc = tss.initialize(&esys, tctiContext, nil)
        guard rc == 0 else {
            tss.tctiFinalize(&tctiContext)
            throw PasscodeError.tpmUnavailable("the TPM at \"\(tcti)\" did not answer (tpm2-tss 0x\(hex(rc)))")
        }
        return TPMDevice(tss: tss, tcti: tcti, tctiContext: tctiContext, esys: esys, ownerAuth: ownerAuth, source: source)
    }

    private init(tss: TSSLibrary, tcti: String, tctiContext: OpaquePointer?, esys: OpaquePointer?, ownerAuth: SecretBytes?, source: String) {
        self.tss = tss
        self.tcti = tcti
        self.tctiContext = tctiContext
        self.esys = esys
        self.ownerAuth = ownerAuth
        ownerAuthSource = source
    }

    deinit {
        for h in loaded.values { _ = tss.flush(esys, h) }
        if sessionHandle != TPM2.trNone { _ = tss.flush(esys, sessionHandle) }
        if primaryHandle != TPM2.trNone { _ = tss.flush(esys, primaryHandle) }
        tss.finalize(&esys)
        tss.tctiFinalize(&tctiContext)
    }

    // MARK: - Errors

    /// The error for a failed call: the TPM gone is `tpmUnavailable`, its lockout `tpmLockout`.
    private func failure(_ what: String, _ rc: UInt32) -> PasscodeError {
        switch TPM2.tpmCode(rc) {
        case TPM2.rcLockout?: return .tpmLockout(seconds: (try? lockout().seconds) ?? 0)
        case TPM2.rcObjectMemory?, TPM2.rcSessionMemory?:
            return .tpmFailed("the TPM has no room for \(what) (0x\(hex(rc))): objects of other programs, or of killed ones on a TPM without a resource manager, fill it")
        case nil where rc & 0xFFFF_0000 == 0x000A_0000:  // the TCTI layer: the connection
            return .tpmUnavailable("the TPM at \"\(tcti)\" stopped answering during \(what) (tpm2-tss 0x\(hex(rc)))")
        default: return .tpmFailed("the TPM refused \(what) (0x\(hex(rc)))")
        }
    }

    private func check(_ rc: UInt32, _ what: String) throws(PasscodeError) {
        guard rc == 0 else { throw failure(what, rc) }
    }

    /// A refused owner authorization: the library has none and the TPM has one set, or the
    /// administrator's file holds another.
    private func ownerFailure(_ what: String, _ rc: UInt32) -> PasscodeError {
        switch TPM2.tpmCode(rc) {
        case TPM2.rcBadAuth?, TPM2.rcAuthFail?:
            return .tpmOwnerAuth(ownerAuth == nil
                ? "the TPM's owner authorization is set, and \(what) needs it: provision the library (\(ownerAuthSource), passcode-tpm(7), \"Provisioned mode\")"
                : "the owner authorization in \(ownerAuthSource) is not this TPM's (\(what))")
        default: return failure(what, rc)
        }
    }

    private func checkOwner(_ rc: UInt32, _ what: String) throws(PasscodeError) {
        guard rc == 0 else { throw ownerFailure(what, rc) }
    }

    /// The session that authorizes the owner hierarchy for the next command: its (empty)
    /// password, or, provisioned, the salted HMAC session with the owner authorization set.
    private func ownerSession() throws(PasscodeError) -> ESYS_TR {
        guard let ownerAuth else { return TPM2.trPassword }
        var value = TPMDevice.authValue(ownerAuth)
        defer { withUnsafeMutableBytes(of: &value) { Sodium.wipe($0) } }
        try check(tss.setAuth(esys, TPM2.trOwner, &value), "taking the owner authorization")
        return try session()
    }

    // MARK: - Keys and sessions

    /// The storage root key: derived again from the owner seed on every call (not persisted).
    private func primary() throws(PasscodeError) -> ESYS_TR {
        if primaryHandle != TPM2.trNone { return primaryHandle }
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2.algECC
        template.publicArea.nameAlg = TPM2.algSHA256
        template.publicArea.objectAttributes = TPM2.fixedTPM | TPM2.fixedParent | TPM2.sensitiveDataOrigin | TPM2.userWithAuth
            | TPM2.restricted | TPM2.decrypt | TPM2.noDA
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2.algAES
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2.algCFB
        template.publicArea.parameters.eccDetail.scheme.scheme = TPM2.algNull
        template.publicArea.parameters.eccDetail.curveID = TPM2.eccNistP256
        template.publicArea.parameters.eccDetail.kdf.scheme = TPM2.algNull
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var outside = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var handle: ESYS_TR = TPM2.trNone
        // Provisioned, the owner authorization goes in an HMAC session (never in the clear); there
        // is no key to salt it with yet, and it needs none: the authorization is 32 random bytes.
        var auth = TPM2.trPassword
        if let ownerAuth {
            var value = TPMDevice.authValue(ownerAuth)
            defer { withUnsafeMutableBytes(of: &value) { Sodium.wipe($0) } }
            try check(tss.setAuth(esys, TPM2.trOwner, &value), "taking the owner authorization")
            var none = TPMT_SYM_DEF()
            none.algorithm = TPM2.algNull
            try check(tss.startAuthSession(esys, TPM2.trNone, TPM2.trNone, TPM2.trNone, TPM2.trNone, TPM2.trNone, nil, TPM2.seHMAC,
                                           &none, TPM2.algSHA256, &auth), "starting a session")
        }
        defer { if auth != TPM2.trPassword { _ = tss.flush(esys, auth) } }
        try checkOwner(tss.createPrimary(esys, TPM2.trOwner, auth, TPM2.trNone, TPM2.trNone, &sensitive, &template, &outside,
                                         &pcrs, &handle, nil, nil, nil, nil), "deriving its storage key")
        primaryHandle = handle
        return handle
    }

    /// AES-128-CFB, the parameter encryption of every salted session.
    private static var aes128CFB: TPMT_SYM_DEF {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPM2.algAES
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPM2.algCFB
        return symmetric
    }

    /// A salted HMAC session that encrypts the first parameter both ways (AES-128-CFB): the
    /// authorization and the secret never cross the bus in the clear.
    private func session() throws(PasscodeError) -> ESYS_TR {
        if sessionHandle != TPM2.trNone { return sessionHandle }
        let salt = try primary()
        var symmetric = TPMDevice.aes128CFB
        var handle: ESYS_TR = TPM2.trNone
        try check(tss.startAuthSession(esys, salt, TPM2.trNone, TPM2.trNone, TPM2.trNone, TPM2.trNone, nil, 0, &symmetric,
                                       TPM2.algSHA256, &handle), "starting a session")
        sessionHandle = handle
        let flags = TPM2.sessionContinue | TPM2.sessionDecrypt | TPM2.sessionEncrypt
        try check(tss.sessionSetAttributes(esys, handle, flags, 0xff), "setting the session's attributes")
        return handle
    }

    /// The public area of every sealed object: a keyed-hash object holding data, DA-protected.
    /// With `policy` (provisioned) the object has no usable authorization of its own: only the
    /// policy (TPM2_PolicySecret on the store's PIN_FAIL index) unseals it.
    private static func sealTemplate(unique: [UInt8]?, policy: [UInt8]? = nil) -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2.algKeyedHash
        template.publicArea.nameAlg = TPM2.algSHA256
        template.publicArea.objectAttributes = TPM2.fixedTPM | TPM2.fixedParent | (policy == nil ? TPM2.userWithAuth : 0)
        if let policy {
            template.publicArea.authPolicy.size = UInt16(policy.count)
            withUnsafeMutableBytes(of: &template.publicArea.authPolicy.buffer) { $0.copyBytes(from: policy) }
        }
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2.algNull
        if let unique {
            template.publicArea.unique.keyedHash.size = UInt16(unique.count)
            withUnsafeMutableBytes(of: &template.publicArea.unique.keyedHash.buffer) { $0.copyBytes(from: unique) }
        }
        return template
    }

    private static func authValue(_ auth: SecretBytes) -> TPM2B_AUTH {
        var value = TPM2B_AUTH()
        auth.withBytes { bytes in
            value.size = UInt16(bytes.count)
            withUnsafeMutableBytes(of: &value.buffer) { $0.copyMemory(from: bytes) }
        }
        return value
    }

    // MARK: - Sealing

    /// Seals `secret` (32 bytes) under this TPM's storage key with `auth` as its authorization,
    /// or, with `pinIndex`, behind that PIN_FAIL index (whose authorization is the passcode's).
    func seal(_ secret: SecretBytes, auth: SecretBytes, pinIndex: UInt32? = nil) throws(PasscodeError) -> TPMSealed {
        let parent = try primary()
        var policy: [UInt8]?
        if let pinIndex {
            guard let pin = try pinHandle(pinIndex) else { throw PasscodeError.tpmFailed("the new guess-limit index is gone") }
            policy = TPMDevice.pinPolicy(name: pin.name)
        }
        let s = try session()
        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { withUnsafeMutableBytes(of: &sensitive) { Sodium.wipe($0) } }
        if policy == nil { sensitive.sensitive.userAuth = TPMDevice.authValue(auth) }
        secret.withBytes { bytes in
            sensitive.sensitive.data.size = UInt16(bytes.count)
            withUnsafeMutableBytes(of: &sensitive.sensitive.data.buffer) { $0.copyMemory(from: bytes) }
        }
        var template = TPMDevice.sealTemplate(unique: nil, policy: policy)
        var outside = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var priv: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var pub: UnsafeMutablePointer<TPM2B_PUBLIC>?
        try check(tss.create(esys, parent, s, TPM2.trNone, TPM2.trNone, &sensitive, &template, &outside, &pcrs, &priv, &pub,
                             nil, nil, nil), "sealing the secret")
        defer { tss.free(priv); tss.free(pub) }
        guard let priv, let pub else { throw PasscodeError.tpmFailed("the TPM returned no sealed object") }
        let unique = withUnsafeBytes(of: pub.pointee.publicArea.unique.keyedHash.buffer) {
            Array($0.prefix(Int(pub.pointee.publicArea.unique.keyedHash.size)))
        }
        let blob = withUnsafeBytes(of: priv.pointee.buffer) { Array($0.prefix(Int(priv.pointee.size))) }
        guard unique.count == TPMSealed.uniqueBytes else { throw PasscodeError.tpmFailed("the TPM returned an unexpected sealed object") }
        return TPMSealed(unique: unique, privateBlob: blob, pinIndex: pinIndex)
    }

    /// Loads a sealed object (once per connection). A blob this TPM did not make (another
    /// machine, or this TPM after a clear) is `tpmMismatch`. With a PIN_FAIL index, the load is
    /// also the proof that the object's policy is TPM2_PolicySecret on that very index (the file
    /// names the index, and the file is input): the public area given to TPM2_Load carries the
    /// policy digest computed from the index's name as the TPM reports it, and the TPM refuses a
    /// public area other than the one the private blob was made with; TPM2_ReadPublic then reads
    /// the loaded object's policy and attributes back. Any other index is `tpmMismatch` naming it.
    func load(_ sealed: TPMSealed) throws(PasscodeError) -> ESYS_TR {
        if let handle = loaded[sealed] { return handle }
        let parent = try primary()
        var policy: [UInt8]?
        if let index = sealed.pinIndex {
            guard let pin = try pinHandle(index) else {
                throw PasscodeError.tpmMismatch("the store's guess-limit index 0x\(hex8(index)) is not on this TPM, or is not a PIN_FAIL index written and read by the owner alone (another TPM, or it was removed)")
            }
            policy = TPMDevice.pinPolicy(name: pin.name)
        }
        var template = TPMDevice.sealTemplate(unique: sealed.unique, policy: policy)
        var priv = TPM2B_PRIVATE()
        guard sealed.privateBlob.count <= TPMSealed.maxPrivateBytes else { throw PasscodeError.corrupt("the store's TPM blob is too long") }
        priv.size = UInt16(sealed.privateBlob.count)
        withUnsafeMutableBytes(of: &priv.buffer) { $0.copyBytes(from: sealed.privateBlob) }
        var handle: ESYS_TR = TPM2.trNone
        let rc = tss.load(esys, parent, TPM2.trPassword, TPM2.trNone, TPM2.trNone, &priv, &template, &handle)
        switch TPM2.tpmCode(rc) {
        case 0?: break
        case TPM2.rcIntegrity?, TPM2.rcBinding?, TPM2.rcKey?, TPM2.rcValue?, TPM2.rcSize?:
            if let index = sealed.pinIndex {
                throw PasscodeError.tpmMismatch("the sealed secret's policy does not name the guess-limit index 0x\(hex8(index)) the store file names (the file was changed, or the store is bound to another TPM, or this TPM was cleared since) (0x\(hex(rc)))")
            }
            throw PasscodeError.tpmMismatch("the store is bound to another TPM, or this TPM was cleared since (0x\(hex(rc)))")
        default: throw failure("loading the sealed secret", rc)
        }
        if let policy, let index = sealed.pinIndex {
            do { try checkPolicy(handle, policy: policy, index: index) } catch {
                _ = tss.flush(esys, handle)
                throw error
            }
        }
        loaded[sealed] = handle
        return handle
    }

    /// The loaded object's public area as the TPM has it: its policy must be `policy` (TPM2_PolicySecret
    /// on `index`) and its own authorization unusable (no userWithAuth), or the index limits nothing.
    private func checkPolicy(_ object: ESYS_TR, policy: [UInt8], index: UInt32) throws(PasscodeError) {
        var pub: UnsafeMutablePointer<TPM2B_PUBLIC>?
        try check(tss.readPublic(esys, object, TPM2.trNone, TPM2.trNone, TPM2.trNone, &pub, nil, nil), "reading the sealed secret's policy")
        defer { tss.free(pub) }
        guard let pub else { throw PasscodeError.tpmFailed("the TPM returned no public area") }
        let area = pub.pointee.publicArea
        let digest = withUnsafeBytes(of: area.authPolicy.buffer) { Array($0.prefix(Int(area.authPolicy.size))) }
        guard digest == policy else {
            throw PasscodeError.tpmMismatch("the sealed secret's policy is not TPM2_PolicySecret on the guess-limit index 0x\(hex8(index)) the store file names")
        }
        guard area.objectAttributes & TPM2.userWithAuth == 0 else {
            throw PasscodeError.tpmMismatch("the sealed secret can be used without its guess-limit index 0x\(hex8(index)) (userWithAuth)")
        }
    }

    /// The pinLimit that holds for `sealed` (provisioned, through a PIN_FAIL index): the object is
    /// loaded, which proves its policy names that index (`load`), and the index's pinLimit read.
    /// nil for an object without an index, or without the owner authorization to read it.
    func verifiedPinLimit(_ sealed: TPMSealed) throws(PasscodeError) -> UInt32? {
        guard let index = sealed.pinIndex else { return nil }
        // Loaded whichever the mode: a file that names an index the object's policy does not
        // name is a mismatch (`tpmMismatch`) on an unprovisioned TPM too, so the posture says
        // the binding holds nothing (`passcode_tpm_posture`'s NO_OFFLINE_SEARCH 0).
        _ = try load(sealed)
        guard provisioned else { return nil }
        return try pinCounts(index)?.limit
    }

    /// The sealed secret, or nil when `auth` is wrong (which the TPM counts against its lockout).
    /// `sealed` loaded, then unsealed with `auth`, through its PIN_FAIL index when it has one;
    /// nil when `auth` is not its authorization.
    func unseal(_ sealed: TPMSealed, auth: SecretBytes) throws(PasscodeError) -> SecretBytes? {
        let object = try load(sealed)
        if let index = sealed.pinIndex { return try unsealThroughPin(object, index: index, auth: auth) }
        return try unseal(object, auth: auth)
    }

    func unseal(_ object: ESYS_TR, auth: SecretBytes) throws(PasscodeError) -> SecretBytes? {
        var value = TPMDevice.authValue(auth)
        defer { withUnsafeMutableBytes(of: &value) { Sodium.wipe($0) } }
        try check(tss.setAuth(esys, object, &value), "taking the authorization")
        let s = try session()
        var out: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        let rc = tss.unseal(esys, object, s, TPM2.trNone, TPM2.trNone, &out)
        var empty = TPM2B_AUTH()
        _ = tss.setAuth(esys, object, &empty)
        defer {
            if let out { withUnsafeMutableBytes(of: &out.pointee) { Sodium.wipe($0) } }
            tss.free(out)
        }
        switch TPM2.tpmCode(rc) {
        case 0?: break
        case TPM2.rcAuthFail?, TPM2.rcBadAuth?: return nil
        default: throw failure("unsealing the secret", rc)
        }
        guard let out else { throw PasscodeError.tpmFailed("the TPM returned no secret") }
        return withUnsafeBytes(of: out.pointee.buffer) { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(out.pointee.size)))) }
    }

    // MARK: - The guess limit (provisioned)

    /// The PIN_FAIL index at `index` and its name, when it is one of ours; nil when there is none.
    private func pinHandle(_ index: UInt32) throws(PasscodeError) -> (handle: ESYS_TR, name: [UInt8])? {
        var handle: ESYS_TR = TPM2.trNone
        let rc = tss.fromTPMPublic(esys, index, TPM2.trNone, TPM2.trNone, TPM2.trNone, &handle)
        if TPM2.tpmCode(rc) == TPM2.rcHandle { return nil }
        try check(rc, "finding the guess-limit index")
        var pub: UnsafeMutablePointer<TPM2B_NV_PUBLIC>?
        var name: UnsafeMutablePointer<TPM2B_NAME>?
        try check(tss.nvReadPublic(esys, handle, TPM2.trNone, TPM2.trNone, TPM2.trNone, &pub, &name), "reading the guess-limit index")
        defer { tss.free(pub); tss.free(name) }
        guard let pub, let name, pub.pointee.nvPublic.attributes == TPM2.pinAttributes | TPM2.nvWritten,
              pub.pointee.nvPublic.dataSize == 8 else { return nil }
        let bytes = withUnsafeBytes(of: name.pointee.name) { Array($0.prefix(Int(name.pointee.size))) }
        return (handle, bytes)
    }

    /// The policy digest of TPM2_PolicySecret naming `name` (no policyRef), computed as the TPM does.
    static func pinPolicy(name: [UInt8]) -> [UInt8] {
        let code = TPM2.ccPolicySecret
        let first = Sodium.sha256([UInt8](repeating: 0, count: 32) + [UInt8(code >> 24), UInt8(code >> 16 & 0xff), UInt8(code >> 8 & 0xff), UInt8(code & 0xff)] + name)
        return Sodium.sha256(first)
    }

    /// Defines a PIN_FAIL index (owner authorization) whose authorization is `auth` and which
    /// refuses it after `limit` consecutive failures (a success sets the count back to 0); the
    /// TPM's DA lockout neither counts nor clears it.
    func definePin(auth: SecretBytes, limit: UInt32) throws(PasscodeError) -> UInt32 {
        guard ownerAuth != nil else { throw PasscodeError.tpmOwnerAuth("a guess-limit index needs the owner authorization") }
        for _ in 0..<16 {
            let index = TPM2.nvFirst + Sodium.randomUniform(TPM2.nvSpan)
            var info = TPM2B_NV_PUBLIC()
            info.nvPublic.nvIndex = index
            info.nvPublic.nameAlg = TPM2.algSHA256
            info.nvPublic.attributes = TPM2.pinAttributes
            info.nvPublic.dataSize = 8
            var value = TPMDevice.authValue(auth)
            defer { withUnsafeMutableBytes(of: &value) { Sodium.wipe($0) } }
            var handle: ESYS_TR = TPM2.trNone
            let rc = tss.nvDefine(esys, TPM2.trOwner, try ownerSession(), TPM2.trNone, TPM2.trNone, &value, &info, &handle)
            if TPM2.tpmCode(rc) == TPM2.rcNVDefined { continue }
            try checkOwner(rc, "defining the guess-limit index")
            var data = TPM2B_MAX_NV_BUFFER()
            data.size = 8
            let bytes: [UInt8] = [0, 0, 0, 0, UInt8(limit >> 24), UInt8(limit >> 16 & 0xff), UInt8(limit >> 8 & 0xff), UInt8(limit & 0xff)]
            ctss2_nv_buffer_bytes(&data).update(from: bytes, count: bytes.count)
            try checkOwner(tss.nvWrite(esys, TPM2.trOwner, handle, try ownerSession(), TPM2.trNone, TPM2.trNone, &data, 0),
                           "starting the guess-limit index")
            return index
        }
        throw PasscodeError.tpmFailed("no free NV index for the guess limit")
    }

    /// The index's pinCount and pinLimit (owner authorization); nil without it or without the index.
    func pinCounts(_ index: UInt32) throws(PasscodeError) -> (count: UInt32, limit: UInt32)? {
        guard ownerAuth != nil, let pin = try pinHandle(index) else { return nil }
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        let rc = tss.nvRead(esys, TPM2.trOwner, pin.handle, try ownerSession(), TPM2.trNone, TPM2.trNone, 8, 0, &data)
        defer { tss.free(data) }
        try checkOwner(rc, "reading the guess limit")
        guard let data, data.pointee.size == 8 else { throw PasscodeError.tpmFailed("the guess-limit index has an unexpected size") }
        let b = Array(UnsafeBufferPointer(start: ctss2_nv_buffer_bytes(data), count: 8))
        let word = { (i: Int) in b[i...i + 3].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        return (word(0), word(4))
    }

    /// Sets the index's pinCount (owner authorization), its pinLimit kept: the library puts back
    /// the guesses it has charged to the passcode from outside after a success zeroed the count.
    func setPinCount(_ index: UInt32, count: UInt32, limit: UInt32) throws(PasscodeError) {
        guard ownerAuth != nil, let pin = try pinHandle(index) else { return }
        var data = TPM2B_MAX_NV_BUFFER()
        data.size = 8
        let bytes: [UInt8] = [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff),
                              UInt8(limit >> 24), UInt8(limit >> 16 & 0xff), UInt8(limit >> 8 & 0xff), UInt8(limit & 0xff)]
        ctss2_nv_buffer_bytes(&data).update(from: bytes, count: bytes.count)
        try checkOwner(tss.nvWrite(esys, TPM2.trOwner, pin.handle, try ownerSession(), TPM2.trNone, TPM2.trNone, &data, 0),
                       "restoring the guess-limit count")
    }

    /// Removes a PIN_FAIL index of ours (owner authorization); a missing one is fine.
    func undefinePin(_ index: UInt32) throws(PasscodeError) {
        guard let pin = try pinHandle(index) else { return }
        try checkOwner(tss.nvUndefine(esys, TPM2.trOwner, pin.handle, try ownerSession(), TPM2.trNone, TPM2.trNone),
                       "removing the guess-limit index")
    }

    /// Provisioned unseal: TPM2_PolicySecret with `auth` on the store's PIN_FAIL index (in a
    /// salted HMAC session), then the unseal in that policy session. nil when `auth` is wrong,
    /// which the index counts; `tpmGuessLimit` once it has counted its limit.
    func unsealThroughPin(_ object: ESYS_TR, index: UInt32, auth: SecretBytes) throws(PasscodeError) -> SecretBytes? {
        guard let pin = try pinHandle(index) else { throw PasscodeError.tpmMismatch("the store's guess-limit index is not on this TPM") }
        let salt = try primary()
        var symmetric = TPMDevice.aes128CFB
        var policySession: ESYS_TR = TPM2.trNone
        try check(tss.startAuthSession(esys, salt, TPM2.trNone, TPM2.trNone, TPM2.trNone, TPM2.trNone, nil, TPM2.sePolicy, &symmetric,
                                       TPM2.algSHA256, &policySession), "starting a policy session")
        defer { _ = tss.flush(esys, policySession) }
        try check(tss.sessionSetAttributes(esys, policySession, TPM2.sessionContinue | TPM2.sessionEncrypt, 0xff),
                  "setting the session's attributes")
        var value = TPMDevice.authValue(auth)
        defer { withUnsafeMutableBytes(of: &value) { Sodium.wipe($0) } }
        try check(tss.setAuth(esys, pin.handle, &value), "taking the authorization")
        let s = try session()
        var timeout: UnsafeMutablePointer<TPM2B_TIMEOUT>?
        var ticket: UnsafeMutablePointer<TPMT_TK_AUTH>?
        let rc = tss.policySecret(esys, pin.handle, policySession, s, TPM2.trNone, TPM2.trNone, nil, nil, nil, 0, &timeout, &ticket)
        tss.free(timeout)
        tss.free(ticket)
        var empty = TPM2B_AUTH()
        _ = tss.setAuth(esys, pin.handle, &empty)
        switch TPM2.tpmCode(rc) {
        case 0?: break
        case TPM2.rcAuthFail?, TPM2.rcBadAuth?: return nil
        case TPM2.rcAuthUnavailable?: throw PasscodeError.tpmGuessLimit
        default: throw failure("checking the passcode against the guess limit", rc)
        }
        var out: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        let urc = tss.unseal(esys, object, policySession, TPM2.trNone, TPM2.trNone, &out)
        defer {
            if let out { withUnsafeMutableBytes(of: &out.pointee) { Sodium.wipe($0) } }
            tss.free(out)
        }
        try check(urc, "unsealing the secret")
        guard let out else { throw PasscodeError.tpmFailed("the TPM returned no secret") }
        return withUnsafeBytes(of: out.pointee.buffer) { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(out.pointee.size)))) }
    }

    // MARK: - Lockout and posture

    /// The TPM's variable properties from TPM2_PT_PERMANENT to TPM2_PT_LOCKOUT_RECOVERY (one GetCapability).
    private func properties() throws(PasscodeError) -> [UInt32: UInt32] {
        var values: [UInt32: UInt32] = [:]
        var next = TPM2.ptPermanent
        while next <= TPM2.ptLockoutRecovery {
            var more: TPMI_YES_NO = 0
            var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
            let rc = tss.getCapability(esys, TPM2.trNone, TPM2.trNone, TPM2.trNone, TPM2.capProperties, next,
                                       TPM2.ptLockoutRecovery - next + 1, &more, &data)
            defer { tss.free(data) }
            guard rc == 0, let data else { throw failure("reporting its lockout", rc) }
            let count = Int(min(data.pointee.data.tpmProperties.count, UInt32(TPM2.ptLockoutRecovery - TPM2.ptPermanent + 1)))
            var last = next
            withUnsafeBytes(of: data.pointee.data.tpmProperties.tpmProperty) { raw in
                for p in raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self).prefix(count) {
                    values[p.property] = p.value
                    last = max(last, p.property)
                }
            }
            guard more != 0, count > 0 else { break }
            next = last + 1
        }
        return values
    }

    func lockout() throws(PasscodeError) -> TPMLockout { try posture().lockout }

    /// The TPM's dictionary-attack settings and which hierarchy authorizations are set.
    func posture() throws(PasscodeError) -> TPMSettings {
        let values = try properties()
        guard let permanent = values[TPM2.ptPermanent], let failures = values[TPM2.ptLockoutCounter],
              let maxFailures = values[TPM2.ptMaxAuthFail], let interval = values[TPM2.ptLockoutInterval],
              let recovery = values[TPM2.ptLockoutRecovery] else { throw PasscodeError.tpmFailed("the TPM did not report its lockout") }
        return TPMSettings(ownerAuthSet: permanent & TPM2.permanentOwnerAuthSet != 0,
                           lockoutAuthSet: permanent & TPM2.permanentLockoutAuthSet != 0,
                           lockout: TPMLockout(failures: failures, maxFailures: maxFailures, intervalSeconds: interval),
                           lockoutRecoverySeconds: recovery)
    }

    // MARK: - The attempt counter

    private func nvHandle(_ index: UInt32) throws(PasscodeError) -> ESYS_TR? { try counterEntry(index)?.handle }

    /// Whether the counter at `index` is the provisioned kind (only the owner increments it).
    func counterIsOwnerWritten(_ index: UInt32) throws(PasscodeError) -> Bool { try counterEntry(index)?.ownerWrite ?? false }

    private func counterEntry(_ index: UInt32) throws(PasscodeError) -> (handle: ESYS_TR, ownerWrite: Bool)? {
        if let entry = counters[index] { return entry }
        var handle: ESYS_TR = TPM2.trNone
        let rc = tss.fromTPMPublic(esys, index, TPM2.trNone, TPM2.trNone, TPM2.trNone, &handle)
        if TPM2.tpmCode(rc) == TPM2.rcHandle { return nil }
        try check(rc, "finding the attempt counter")
        // Only our kinds of index: a counter anyone may read, incremented with its own empty
        // authorization (unprovisioned) or the owner's (provisioned), and nothing else.
        var pub: UnsafeMutablePointer<TPM2B_NV_PUBLIC>?
        try check(tss.nvReadPublic(esys, handle, TPM2.trNone, TPM2.trNone, TPM2.trNone, &pub, nil), "reading the counter's attributes")
        defer { tss.free(pub) }
        guard let pub, pub.pointee.nvPublic.dataSize == 8 else { return nil }
        let attributes = pub.pointee.nvPublic.attributes & ~TPM2.nvWritten  // WRITTEN may be set
        guard attributes == TPM2.counterAttributes || attributes == TPM2.ownerCounterAttributes else { return nil }
        let entry = (handle: handle, ownerWrite: attributes == TPM2.ownerCounterAttributes)
        counters[index] = entry
        return entry
    }

    /// The counter's value; nil when the index does not exist on this TPM (or is not a counter of ours).
    func counter(_ index: UInt32) throws(PasscodeError) -> UInt64? {
        guard let h = try nvHandle(index) else { return nil }
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        let rc = tss.nvRead(esys, h, h, TPM2.trPassword, TPM2.trNone, TPM2.trNone, 8, 0, &data)
        defer { tss.free(data) }
        try check(rc, "reading the attempt counter")
        guard let data, data.pointee.size == 8 else { throw PasscodeError.tpmFailed("the attempt counter has an unexpected size") }
        return UnsafeBufferPointer(start: ctss2_nv_buffer_bytes(data), count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    func increment(_ index: UInt32) throws(PasscodeError) {
        guard let entry = try counterEntry(index) else { throw PasscodeError.tpmMismatch("the store's attempt counter is not on this TPM") }
        if entry.ownerWrite {
            try checkOwner(tss.nvIncrement(esys, TPM2.trOwner, entry.handle, try ownerSession(), TPM2.trNone, TPM2.trNone), "counting the attempt")
        } else {
            try check(tss.nvIncrement(esys, entry.handle, entry.handle, TPM2.trPassword, TPM2.trNone, TPM2.trNone), "counting the attempt")
        }
    }

    /// Defines a new attempt counter (owner hierarchy, empty owner authorization) and returns
    /// its index and first value: a new counter starts at the highest value any counter of the
    /// TPM ever had, so no counter can be made to go back.
    func defineCounter() throws(PasscodeError) -> (index: UInt32, value: UInt64) {
        for _ in 0..<16 {
            let index = TPM2.nvFirst + Sodium.randomUniform(TPM2.nvSpan)
            var info = TPM2B_NV_PUBLIC()
            info.nvPublic.nvIndex = index
            info.nvPublic.nameAlg = TPM2.algSHA256
            info.nvPublic.attributes = ownerAuth == nil ? TPM2.counterAttributes : TPM2.ownerCounterAttributes
            info.nvPublic.dataSize = 8
            var auth = TPM2B_AUTH()
            var handle: ESYS_TR = TPM2.trNone
            let rc = tss.nvDefine(esys, TPM2.trOwner, try ownerSession(), TPM2.trNone, TPM2.trNone, &auth, &info, &handle)
            if TPM2.tpmCode(rc) == TPM2.rcNVDefined { continue }
            try checkOwner(rc, "defining the attempt counter")
            counters[index] = (handle, ownerAuth != nil)
            try increment(index)
            guard let value = try counter(index) else { throw PasscodeError.tpmFailed("the new attempt counter is gone") }
            return (index, value)
        }
        throw PasscodeError.tpmFailed("no free NV index for the attempt counter")
    }

    /// Removes a counter of ours (unbinding); a missing one is fine.
    func undefineCounter(_ index: UInt32) throws(PasscodeError) {
        guard let h = try nvHandle(index) else { return }
        try checkOwner(tss.nvUndefine(esys, TPM2.trOwner, h, try ownerSession(), TPM2.trNone, TPM2.trNone), "removing the attempt counter")
        counters[index] = nil
    }
}

private func hex(_ v: UInt32) -> String { String(v, radix: 16) }
/// An NV index as tpm2-tools print it: 8 hex digits.
private func hex8(_ v: UInt32) -> String { let h = hex(v); return String(repeating: "0", count: max(0, 8 - h.count)) + h }

// MARK: - The secret the passcode and the TPM give together

/// How a bound wrap's key-encryption key is made: Argon2id of the passcode (as unbound) gives
/// `stretched`; from it, by keyed BLAKE2b, the sealed object's authorization and, with the
/// unsealed secret, the KEK. The TPM's answer is needed for every guess.
enum TPMKeys {
    static func auth(_ stretched: SecretBytes) -> SecretBytes {
        Sodium.keyedHash(SecretBytes(Array("libpasscode tpm auth v1".utf8)), key: stretched)
    }

    static func kek(_ stretched: SecretBytes, secret: SecretBytes) -> SecretBytes {
        let label = Array("libpasscode tpm kek v1".utf8)
        let message = SecretBytes(count: label.count + secret.count)
        message.withMutableBytes { out in
            out.copyBytes(from: label)
            secret.withBytes { UnsafeMutableRawBufferPointer(rebasing: out[label.count...]).copyMemory(from: $0) }
        }
        return Sodium.keyedHash(message, key: stretched)
    }
}
