#!/bin/sh
# Checks that Sources/shared/PasscodeCore keeps its layers (docs/hacking.md "Layout"): every SQL statement in the
# storage layer (Store/), SQLite called from Store/SQLite.swift only, libsodium from
# Crypto/Sodium.swift only, the kernel keyring and the TPM from Platform/ only, Policy/ pure (no
# import, no store), the C ABI (Sources/libpasscode/Passcode) never reaching below the façade, and every
# public C declaration in Sources/libpasscode/Passcode (the public enums are C enums in Passcode/Types);
# passcoded and the seam (Sources/libpasscode/PasscodeBackend) never import the C ABI module.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root/Sources"
core=shared/PasscodeCore api=libpasscode/Passcode backend=libpasscode/PasscodeBackend bus=shared/PasscodeBus daemon=passcoded/Daemon
fail=0
complain() {  # complain WHAT LINES
    if [ -n "$2" ]; then printf '%s\n%s\n' "layers: $1" "$2" >&2; fail=1; fi
}
sql='"[^"]*\b(SELECT|INSERT (OR [A-Z]+ )?INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIEW|TRIGGER)|ALTER TABLE|PRAGMA|VACUUM)\b'
complain "SQL outside Store/ (the storage layer owns every statement):" \
    "$(grep -rnE "$sql" --include='*.swift' "$core" | grep -v "^$core/Store/")"
complain "the connection used outside Store/ (ask the storage layer for a typed row instead):" \
    "$(grep -rnE '\b(Database|SQLValue)\b|\.database\b' --include='*.swift' "$core" | grep -v "^$core/Store/" | grep -v '^[^:]*:[0-9]*: *///\? ')"
complain "CSQLite imported outside Store/SQLite.swift:" \
    "$(grep -rn 'import CSQLite' --include='*.swift' "$core" | grep -v "^$core/Store/SQLite\.swift:")"
complain "CSodium imported outside $core/Crypto/Sodium.swift (the library, passcoded and the client ask Sodium):" \
    "$(grep -rn 'import CSodium' --include='*.swift' . | grep -v "^\./$core/Crypto/Sodium\.swift:")"
complain "CKeyring or CTss2 imported outside Platform/:" \
    "$(grep -rnE 'import (CKeyring|CTss2)' --include='*.swift' "$core" | grep -v "^$core/Platform/")"
complain "Policy/ is pure rules: no import, no store, no I/O:" \
    "$(grep -rnE '^(internal )?import |PasscodeStore|\bdb\.|Storage\b' --include='*.swift' "$core/Policy" | grep -v '^[^:]*:[0-9]*: *///\? ')"
complain "Store/ reaches up into the store's parts (the storage layer knows rows, not PasscodeStore):" \
    "$(grep -rn 'PasscodeStore' --include='*.swift' "$core/Store" | grep -v '^[^:]*:[0-9]*: *//')"
complain "the C ABI or the seam reaches below the façade (Sources/libpasscode/Passcode and Sources/libpasscode/PasscodeBackend must call PasscodeStore):" \
    "$(grep -rnE '@testable|\bdb\.|Storage\b|Database\b' --include='*.swift' "$api" "$backend" "$bus")"
complain "a public C declaration outside Sources/libpasscode/Passcode (the C face: @c functions there, C types in Sources/libpasscode/Passcode/Types):" \
    "$(grep -rnE '^\s*@c\(' --include='*.swift' "$core" "$daemon" "$backend" "$bus")"
# A C enum's init(rawValue:) accepts any number: values from outside go through init(checked:).
c_enums=$(sed -n 's/^typedef PASSCODE_CLOSED_ENUM([a-z_]*, \([A-Za-z]*\)).*/\1/p' "$api/Types/types.h" | paste -sd'|')
complain "init(rawValue:) of a public C enum, which never fails (use init(checked:)):" \
    "$(grep -rnE "\\b($c_enums)\\(rawValue:" --include='*.swift' "$core" "$api" "$backend" "$bus" "$daemon" ../Tests)"
complain "passcoded reaches below the façade (it must call PasscodeStore, as the C ABI does):" \
    "$(grep -rnE '@testable|\bdb\.|Storage\b|Database\b|import (CSQLite|CSodium|CKeyring|CTss2)' --include='*.swift' "$daemon")"
complain "sd-bus (CSdBus) used outside the service client (Sources/libpasscode/PasscodeBackend/ServiceClient.swift, which loads libsystemd with dlopen, and ServiceClient+Cache.swift, the pushed state it receives):" \
    "$(grep -rn 'import CSdBus' --include='*.swift' . | grep -vE "^\./$backend/ServiceClient(\+Cache)?\.swift:")"
complain "passcoded imports the C ABI module or the library's back end (it shares only PasscodeBus with the client):" \
    "$(grep -rnE '^(@_implementationOnly |internal |public )?import (Passcode|PasscodeBackend)$' --include='*.swift' "$daemon")"
complain "the seam (Sources/libpasscode/PasscodeBackend) or PasscodeBus imports the C ABI module:" \
    "$(grep -rnE '^(@_implementationOnly |internal |public )?import Passcode$' --include='*.swift' "$backend" "$bus")"
if [ "$fail" = 0 ]; then echo "layers: SQL only in Store/, SQLite, libsodium, keyring and TPM each behind one folder, Policy pure, the C ABI and passcoded above the façade, the C face in Sources/libpasscode/Passcode, sd-bus in the service client only, passcoded and the seam without the C ABI"; fi
exit "$fail"
