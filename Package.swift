// swift-tools-version:6.0
// libpasscode: an app passcode-lock engine with a C ABI.
//
// Layers (see README "Layout"):
//   CSodium            libsodium, found through pkg-config
//   CSQLite            SQLite's header, the store's C helpers, and the loader of libsqlite3.so.0
//                      (dlopen at the first store opened; not linked)
//   CPasscodeVersion   the version numbers of the VERSION file, as C constants
//   CPasscodeTypes     Sources/Passcode/Types: every public C type but the status and cost
//                      (the API's structs and enums), written in C; gen_header.py copies them
//                      into include/passcode.h, and PasscodeCore imports them
//   CKeyring           inline wrappers of the kernel keyring's system calls (no library)
//   CTss2              tpm2-tss's types (libtss2-dev); the libraries are loaded with dlopen
//   CPasscodeShims     the C library as the Swift code uses it, without the Glibc module (Embedded Swift)
//   CSdBus             sd-bus's types (libsystemd-dev); the service client loads libsystemd with dlopen
//   PasscodeCore       the logic: policy, lockout, lock state, store (Swift only)
//   PasscodeBus        what both sides of passcoded's bus share: names, error replies, limits,
//                      hook flags (service/org.libpasscode.Passcode1.xml defines the methods)
//   PasscodeBackend    the seam: the back-end protocols and the service client (sd-bus)
//   Passcode           Sources/Passcode: the C ABI, thin @c functions, built into libpasscode.so
//   CPasscodeBus, passcoded   the system service over the same core (links libsystemd)
//   CPasscodeMail      passcoded's SMTP send of reset codes (links libcurl; the library does not)
import PackageDescription
import Foundation  // the manifest only: the library itself imports no Foundation

/// VERSION holds the one written copy of the version ("major.minor.patch").
let versionText = (try? String(contentsOfFile: Context.packageDirectory + "/VERSION", encoding: .utf8)) ?? ""
let versionParts = versionText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").map(String.init)
let versionDefines: [String] = zip(["MAJOR", "MINOR", "PATCH"], versionParts.count == 3 ? versionParts : ["0", "0", "0"])
    .flatMap { ["-Xcc", "-DPASSCODE_BUILD_VERSION_\($0.0)=\($0.1)"] }

let package = Package(
    name: "libpasscode",
    products: [
        .library(name: "passcode", type: .dynamic, targets: ["Passcode"]),
        .executable(name: "passcoded", targets: ["passcoded"]),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        // SQLite's header (libsqlite3-dev) and the loader that finds libsqlite3.so.0 at the
        // first store opened (Sources/CSQLite/loader.c): the library does not link it.
        .target(name: "CSQLite"),
        .systemLibrary(name: "CKeyring"),
        .systemLibrary(name: "CTss2", providers: [.apt(["libtss2-dev"])]),
        // The public C types, declared in C under Sources/Passcode (the C face is one folder) and
        // imported by the core: an enum declared in C keeps its values in every module and build.
        .systemLibrary(name: "CPasscodeTypes", path: "Sources/Passcode/Types"),
        .systemLibrary(name: "CSdBus", providers: [.apt(["libsystemd-dev"])]),
        // The C library without Swift's Glibc module (errno, the variadic open, the S_IF* types),
        // so that the same sources build with Embedded Swift, which has none.
        .systemLibrary(name: "CPasscodeShims"),
        .target(
            name: "PasscodeCore",
            dependencies: ["CSodium", "CSQLite", "CKeyring", "CTss2", "CPasscodeTypes", "CPasscodeShims"]),
        .systemLibrary(name: "CPasscodeVersion"),
        // Shared by passcoded and the service client; generated in part by scripts/gen_bus.py.
        .target(name: "PasscodeBus", dependencies: ["PasscodeCore"]),
        // The one seam behind the C ABI: the back-end protocols and passcoded's client, linked
        // into libpasscode.so with the C ABI (libsystemd loaded with dlopen, as before).
        .target(name: "PasscodeBackend", dependencies: ["PasscodeCore", "PasscodeBus", "CSdBus", "CSodium"]),
        .target(
            name: "Passcode",
            dependencies: ["PasscodeCore", "PasscodeBackend", "CPasscodeVersion", "CPasscodeTypes", "CPasscodeShims"],
            exclude: ["Types"],
            swiftSettings: [
                // The compiler's C header for the @c declarations; scripts/gen_header.py
                // turns it into include/passcode.h.
                .unsafeFlags(["-emit-clang-header-path",
                              Context.packageDirectory + "/.build/passcode-swift.h"] + versionDefines),
            ]),
        // passcoded: the same core behind the system bus, under its own uid (README "passcoded").
        // CPasscodeBus holds the sd-bus method table (SD_BUS_METHOD is a macro; the table is
        // generated from the XML); the daemon links libsystemd, libpasscode.so never does.
        .target(name: "CPasscodeBus", exclude: ["passcode_bus_vtable.inc"], linkerSettings: [.linkedLibrary("systemd")]),
        // CPasscodeMail: passcoded's SMTP send through libcurl (curl_easy_setopt is variadic, so
        // the send is C); passcoded links libcurl, libpasscode.so never does.
        .target(name: "CPasscodeMail", linkerSettings: [.linkedLibrary("curl")]),
        .executableTarget(name: "passcoded", dependencies: ["PasscodeCore", "PasscodeBus", "CPasscodeBus", "CPasscodeMail"]),
        .testTarget(name: "PasscodeCoreTests", dependencies: ["PasscodeCore"]),
    ]
)
