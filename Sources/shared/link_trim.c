/* Linked into libpasscode.so (make lib) to drop parts of the static Swift runtime the library
 * never uses. Each function here replaces, through the linker's --wrap, every call the Swift
 * standard library makes to the runtime function of the same name without the __wrap_ prefix;
 * the original is then unreferenced and --gc-sections removes it with its tables.
 *
 *  - _swift_stdlib_getScalarName, _swift_stdlib_getNameAlias: Unicode.Scalar.Properties.name and
 *    .nameAlias (about 0.55 MB of Unicode name tables). libpasscode never asks for a character's
 *    Unicode name; with these, the copy of the standard library inside libpasscode (hidden, not
 *    shared with the host) answers nil, as it does for a scalar without a name.
 *
 * scripts/size_parts.py prints what each part of the library weighs (make bench). */
#include <stddef.h>
#include <stdint.h>

int32_t __wrap__swift_stdlib_getScalarName(uint32_t scalar, uint8_t *buffer, int32_t capacity);
const uint8_t *__wrap__swift_stdlib_getNameAlias(uint32_t scalar);

/* The length of the name written to `buffer`: 0, no name. */
int32_t __wrap__swift_stdlib_getScalarName(uint32_t scalar, uint8_t *buffer, int32_t capacity) {
    (void)scalar;
    (void)buffer;
    (void)capacity;
    return 0;
}

/* The alias, or NULL: none. */
const uint8_t *__wrap__swift_stdlib_getNameAlias(uint32_t scalar) {
    (void)scalar;
    return NULL;
}
