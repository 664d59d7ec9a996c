// swift-tools-version:6.0
// libpasscode: an app passcode-lock engine with a C ABI.
//
// The one list of modules and their folders: SwiftPM reads it, and so does the Embedded build of
// the library (scripts/embedded_build.sh, through scripts/modules.py). Each folder under Sources/
// is named for what it goes into (Sources/README.md is the map):
//   Sources/shared/        in both libpasscode.so and passcoded: PasscodeCore (the logic), PasscodeBus
//                          (what both ends of the bus share), and the C modules the core uses
//                          (CSQLite, CSodium, CKeyring, CTss2, CPasscodeShims)
//   Sources/libpasscode/   the library only: Passcode (the C ABI, with Types/, the public C types and
//                          the message table), PasscodeBackend (the embedded store or passcoded's
//                          client), CPasscodeIntl (its translations through gettext), CSdBus,
//                          CSandboxBus (its connection in a sandbox), CPasscodeVersion,
//                          embedded/ (the Embedded build's own C)
//   Sources/passcoded/     the daemon only: Daemon (module passcoded), CPasscodeBus (sd-bus, links
//                          libsystemd), CPasscodeMail (links libcurl); libpasscode.so links neither
//   Sources/pam_passcode/  pam_passcode.so and passcodectl, C against libpasscode.so (the Makefile builds them)
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
        .systemLibrary(name: "CSodium", path: "Sources/shared/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        // SQLite's header (libsqlite3-dev) and the loader that finds libsqlite3.so.0 at the
        // first store opened (Sources/shared/CSQLite/loader.c): the library does not link it.
        .target(name: "CSQLite", path: "Sources/shared/CSQLite"),
        .systemLibrary(name: "CKeyring", path: "Sources/shared/CKeyring"),
        .systemLibrary(name: "CTss2", path: "Sources/shared/CTss2", providers: [.apt(["libtss2-dev"])]),
        // The public C types, declared in C under Sources/libpasscode/Passcode (the C face is one folder) and
        // imported by the core: an enum declared in C keeps its values in every module and build.
        .systemLibrary(name: "CPasscodeTypes", path: "Sources/libpasscode/Passcode/Types"),
        .systemLibrary(name: "CSdBus", path: "Sources/libpasscode/CSdBus", providers: [.apt(["libsystemd-dev"])]),
        // The service client's connection through flatpak's xdg-dbus-proxy: the authentication
        // sent one line at a time, then the socket handed to sd-bus (Sources/libpasscode/CSandboxBus/sandbox_bus.c).
        .target(name: "CSandboxBus", path: "Sources/libpasscode/CSandboxBus"),
        // The library's translations: dgettext and dngettext (glibc) through its own domains, the
        // catalogues found beside the library (Sources/libpasscode/CPasscodeIntl/passcode_intl.c).
        .target(name: "CPasscodeIntl", path: "Sources/libpasscode/CPasscodeIntl"),
        // The C library without Swift's Glibc module (errno, the variadic open, the S_IF* types),
        // so that the same sources build with Embedded Swift, which has none.
        .systemLibrary(name: "CPasscodeShims", path: "Sources/shared/CPasscodeShims"),
        .target(
            name: "PasscodeCore",
            dependencies: ["CSodium", "CSQLite", "CKeyring", "CTss2", "CPasscodeTypes", "CPasscodeShims"], path: "Sources/shared/PasscodeCore"),
        .systemLibrary(name: "CPasscodeVersion", path: "Sources/libpasscode/CPasscodeVersion"),
        // Shared by passcoded and the service client; generated in part by scripts/gen_bus.py.
        .target(name: "PasscodeBus", dependencies: ["PasscodeCore"], path: "Sources/shared/PasscodeBus"),
        // The one seam behind the C ABI: the back-end protocols and passcoded's client, linked
        // into libpasscode.so with the C ABI (libsystemd loaded with dlopen, as before).
        .target(name: "PasscodeBackend", dependencies: ["PasscodeCore", "PasscodeBus", "CSdBus", "CSandboxBus"], path: "Sources/libpasscode/PasscodeBackend"),
        .target(
            name: "Passcode",
            dependencies: ["PasscodeCore", "PasscodeBackend", "CPasscodeVersion", "CPasscodeTypes", "CPasscodeShims", "CPasscodeIntl"], path: "Sources/libpasscode/Passcode",
            exclude: ["Types"],
            swiftSettings: [
                // The compiler's C header for the @c declarations; scripts/gen_header.py
                // turns it into include/passcode.h.
                .unsafeFlags(["-emit-clang-header-path",
                              Context.packageDirectory + "/.build/passcode-swift.h"] + versionDefines),
            ]),
        // passcoded: the same core behind the system bus, under its own uid (passcoded(8), docs/passcoded.8.md).
        // CPasscodeBus holds the sd-bus method table (SD_BUS_METHOD is a macro; the table is
        // generated from the XML); the daemon links libsystemd, libpasscode.so never does.
        .target(name: "CPasscodeBus", path: "Sources/passcoded/CPasscodeBus", exclude: ["passcode_bus_vtable.inc", "passcode_bus_store.inc"], linkerSettings: [.linkedLibrary("systemd")]),
        // CPasscodeMail: passcoded's SMTP send through libcurl (curl_easy_setopt is variadic, so
        // the send is C); passcoded links libcurl, libpasscode.so never does.
        .target(name: "CPasscodeMail", path: "Sources/passcoded/CPasscodeMail", linkerSettings: [.linkedLibrary("curl")]),
        .executableTarget(name: "passcoded", dependencies: ["PasscodeCore", "PasscodeBus", "CPasscodeBus", "CPasscodeMail"], path: "Sources/passcoded/Daemon"),
        .testTarget(name: "PasscodeCoreTests", dependencies: ["PasscodeCore"]),
        // make test-swift's check of the public C enums' values, run from the debug build and from
        // the release build passcoded is made from (an XCTest bundle needs a second, testable one).
        .executableTarget(name: "public-enum-check", dependencies: ["PasscodeCore"], path: "Tests/PublicEnumCheck"),
    ]
)
