// swift-tools-version:6.0
// libpasscode: an app passcode-lock engine with a C ABI.
//
// Layers (see README "Layout"):
//   CSodium, CSQLite   system libraries, found through pkg-config
//   PasscodeCore       the logic: policy, lockout, lock state, store (Swift only)
//   Passcode           the C ABI: thin @c functions, built into libpasscode.so
import PackageDescription

let package = Package(
    name: "libpasscode",
    products: [
        .library(name: "passcode", type: .dynamic, targets: ["Passcode"]),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "PasscodeCore",
            dependencies: ["CSodium", "CSQLite"],
            swiftSettings: [
                // Its @c enums (settings, reasons) belong in the public header too.
                .unsafeFlags(["-emit-clang-header-path",
                              Context.packageDirectory + "/.build/passcode-core-swift.h"]),
            ]),
        .target(
            name: "Passcode",
            dependencies: ["PasscodeCore"],
            swiftSettings: [
                // The compiler's C header for the @c declarations; scripts/gen_header.py
                // turns it into include/passcode.h.
                .unsafeFlags(["-emit-clang-header-path",
                              Context.packageDirectory + "/.build/passcode-swift.h"]),
            ]),
        .testTarget(name: "PasscodeCoreTests", dependencies: ["PasscodeCore"]),
    ]
)
