/* The library version, from the VERSION file at the top of the source tree: Package.swift reads
 * it and passes its three numbers with -D, so the version is written in one place only. */
#ifndef PASSCODE_BUILD_VERSION_MAJOR
#error "PASSCODE_BUILD_VERSION_MAJOR is not defined: build with SwiftPM, which reads VERSION"
#endif
enum {
    passcode_build_version_major = PASSCODE_BUILD_VERSION_MAJOR,
    passcode_build_version_minor = PASSCODE_BUILD_VERSION_MINOR,
    passcode_build_version_patch = PASSCODE_BUILD_VERSION_PATCH
};
