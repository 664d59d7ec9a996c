SHELL := /bin/bash
# libpasscode, the passcode-lock library. Start here:
#   make demo           try it: the GTK front end (a terminal one without a display) on a default store
#   make                build the library (build/libpasscode.so)
#   make install        install it with its header, pkg-config file, man pages, PAM module and passcodectl
#                       (as root; make uninstall takes them out again)
#   make test           every test group (as root for all of them; installs the test tools it needs)
#
# Build and install
#   make                build/libpasscode.so.$(VERSION) and its symlinks (make lib: the same), built with
#                       Embedded Swift (scripts/embedded_build.sh, no Swift or C++ runtime); EMBEDDED=0:
#                       SwiftPM with the full Swift runtime linked in statically
#   make header         regenerate include/passcode.h and python/passcode/_enums.py from Sources/libpasscode/Passcode,
#                       and passcoded's vtable, dispatch, client stubs, the simple methods' both ends and
#                       passcode-service(3)'s method list from its XML (scripts/gen_bus.py); from the header, the
#                       symbols file and python/passcode/_ffi.py's FUNCTIONS (scripts/gen_abi.py)
#   make docs           man pages and the HTML reference (Doxygen) in build/docs
#   make wheel          build/wheelhouse/passcode-*-py3-none-manylinux_*.whl, the library inside
#   make install        PREFIX=/usr/local DESTDIR= LIBDIR=$(PREFIX)/lib, man pages, HTML in $(PREFIX)/share/doc/libpasscode;
#                       as root pam_passcode.so where libpam loads modules (PAMDIR) and its pam-auth-update
#                       profile; prints what went where (make uninstall: those files removed, by its manifest)
#   make deb            the Debian packages, built from the tracked files into build/deb; prints their paths
#   make pam            build/pam_passcode.so (the PAM module: it loads libpasscode.so.0 when called) and
#                       build/passcodectl, against build/libpasscode.so
#   make install-service passcoded, its bus policy, interface XML, activation file, unit, man page and sysusers.d file
#                       where the system bus, polkitd and systemd read them (make uninstall-service: removed)
#   make try-service    service mode without installing: a private bus and this checkout's passcoded, as root
#                       (sudo), CMD= (default: a shell) run with its address; all removed after
#   make deps           the packages of every test tool (make deps-demo: only what make demo needs)
#   make demo           the GTK front end with a display, else the terminal one (DEMO=terminal: always), on a default store
#   make clean          remove build/, .build* and the built demo
#   make help           this list
#   make test-build     every artefact of every test group, built once (make test's first step, with -j2;
#                       make test-build-system: only what the system lane's groups need)
# make test: test-build, then every group below, two lanes at once, also after one failed (Tests/run_groups.sh)
#   make check-header   include/passcode.h matches the Swift sources, the symbols file and _ffi.py the header;
#                       clean under gcc, clang and g++
#   make check-docs     every function has a man page that renders; passcode(3), passcode(7), HTML;
#                       passcode-service(3)'s D-Bus method list is passcoded's XML's; no issue numbers or
#                       review words in the tracked text (Tests/docs/process_words.sh)
#   make check-layers   each layer of Sources/shared/PasscodeCore reaches only what it may (Tests/layers)
#   make check-makefile this list names every target, and its test groups are TEST_GROUPS
#   make check-bus      passcoded's generated vtable, property table, dispatch, stubs, hook calls and app id
#                       rule match its XML; every method has a handler and a caller, every property and hook
#                       both ends, every back-end call reaches the bus (needs no root, no bus)
#   make check-coverage every exported function has a catalogue case, a Python method and a service-mode
#                       run, or a reason marked in scripts/check_coverage.py (needs no build, no root)
#   make test-version   VERSION is the one place the version is written
#   make test-swift     the Swift tests (swift test), the public enums' values also in a release build
#                       (SWIFT_FILTER=name: only the Swift tests that match it, nothing else)
#   make test-tsan      ThreadSanitizer over the Swift tests that share a handle between threads
#   make test-c         the C API tests (TEST=text: only those whose name contains it), the catalogue,
#                       short crash, stress and corruption runs, valgrind
#   make test-tpm       the TPM binding against two swtpm instances on loopback
#   make test-fuzz      FUZZ_SECONDS of libFuzzer over the API (Tests/fuzz/fuzz_api.c)
#   make test-hostile   hostile stores and schemas under ASan and UBSan (Tests/fuzz/hostile_store.c)
#   make test-exports   the library exports exactly the header's functions, needs no Swift library
#   make test-full-runtime the EMBEDDED=0 library (full Swift runtime, static) built aside, its exports, test_api key/lock
#   make test-install   install into a temporary prefix; the C quick start built against it; as root make install
#                       and install-service for the live system, checked, uninstalled (private mount namespace)
#   make test-frontends the C, curses and Python front ends, scripted (Tests/frontends); the Python one
#                       interactive at COLUMNS=40, wrapped at spaces; both in German, French and English for
#                       an unknown language; as root both with --service
#   make test-gtk       the GTK front end under Xvfb (Tests/gtk); as root also through passcoded; then as a
#                       screen reader reads it (AT-SPI): every screen's names and roles, every flow by keys, by actions
#   make test-python    the binding's tests, the README's quick starts, the wheel's metadata, mypy
#                       (PYTEST_ARGS='-k name': only the binding's tests that match, nothing else)
#   make test-wheel     the wheel with its library, in a fresh venv
#   make test-service   passcoded on a private bus: its users, attacks, kills, load, random calls (root)
#   make test-pam       pam_passcode and passcodectl against passcoded on a private bus: outcomes, pitfalls,
#                       other users, enrolment, the login lock state (PAM_PASSCODE_STATE, pushed to the user
#                       and a greeter), the lockout across restarts, reboots and a TPM (pam_wrapper, pypamtest,
#                       pamtester; root)
#   make test-pam-system the real sudo, su, login and runuser in a private mount namespace, against make install's
#                       module and make install-service's passcoded on Debian's own system bus (root)
#   make deb-test       the Debian packages: build, lintian, install, use from C and Python (root)
#   make test-sandbox   apps in a sandbox as flatpak makes one (bubblewrap, xdg-dbus-proxy) reach passcoded,
#                       each confined to the app id its sandbox names (root)
# Longer runs, outside make test
#   make fuzz           FUZZ_LONG_RUNS of the API fuzzer, then HOSTILE_LONG rounds of test-hostile
#   make crash          1000 crash-harness rounds (make stress, make corrupt: the same for those)
#   make valgrind       test_api and test_catalogue under memcheck
#   make bench          benchmarks, as ratios against a baseline in the same run (make bench-verify: verify rows only;
#                       make bench-calls: the cheap calls and the load only; BENCH_RUNS=5: the runs whose
#                       median the poll, open + close, Python's is_set and bench-service's verify give)
#   make bench-baseline the 0.7.0 library in build/baseline-0.7.0, for make bench's open + close row against it
#   make bench-service  passcoded's rows (root): verify through it vs embedded on tmpfs, a cached query, 100 clients vs one
#   make screenshots    renew docs/screenshots/*.png from the GTK front end

# `make help` prints the list above; `make check-makefile` (a group of make test) fails when a
# target is missing from it or the test groups in it are not TEST_GROUPS.

SWIFT    ?= swift
CC       ?= cc
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR   ?= $(PREFIX)/share/man
DOCDIR   ?= $(PREFIX)/share/doc/libpasscode
LOCALEDIR ?= $(PREFIX)/share/locale
DESTDIR  ?=
# make install writes LIBDIR here, for the Python binding (empty: nothing recorded).
PASSCODE_RECORD ?= python/passcode/_installed_libdir

# VERSION is the one place the version is written.
VERSION  := $(shell cat VERSION)
VERSION_MAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME   := libpasscode.so.$(VERSION_MAJOR)
REALNAME := libpasscode.so.$(VERSION)

B        := build
# The translations' languages, the library's gettext domain and the catalogues make builds
# (the rules: after lib below).
LINGUAS  := $(shell cat po/LINGUAS)
DOMAIN   := libpasscode$(VERSION_MAJOR)
MO_FILES := $(foreach l,$(LINGUAS),$(B)/share/locale/$(l)/LC_MESSAGES/$(DOMAIN).mo \
    $(B)/share/locale/$(l)/LC_MESSAGES/pam_passcode.mo $(B)/share/locale/$(l)/LC_MESSAGES/passcode-demo.mo)
LIB      := $(B)/$(REALNAME)
STRICT   := -std=c99 -Wall -Wextra -Wpedantic -Werror
# What each product is built from, by folder (Sources/README.md): the library from shared/ and
# libpasscode/, passcoded from shared/ and passcoded/; Package.swift lists the modules in them.
SHARED_SOURCES := $(shell find Sources/shared -type f ! -name '*.md') Package.swift VERSION
SOURCES  := $(SHARED_SOURCES) $(shell find Sources/libpasscode -type f ! -name '*.md')
DAEMON_SOURCES := $(SHARED_SOURCES) $(shell find Sources/passcoded -type f ! -name '*.md')


.PHONY: all lib pam header docs wheel deb install install-service try-service uninstall uninstall-service deps deps-demo demo clean help
.PHONY: test test-build test-build-system check-header check-docs check-layers check-makefile check-bus check-coverage test-version test-swift test-tsan test-c test-tpm test-fuzz test-hostile
.PHONY: test-exports test-full-runtime test-install test-frontends test-gtk test-python test-wheel test-service test-pam test-pam-system deb-test test-sandbox
.PHONY: fuzz crash stress corrupt valgrind bench bench-verify bench-calls bench-service bench-baseline screenshots

all: lib

# make test's packages (every test tool); make demo installs only what the demo needs.
deps:
	@scripts/ensure-deps.sh test

deps-demo:
	@scripts/ensure-deps.sh demo

lib: $(LIB) $(B)/passcode.pc $(MO_FILES)

# The translations (po/, one folder per gettext domain; po/LINGUAS lists the languages): the
# library's catalogue under a domain named for its SONAME (libpasscode0, so that a later
# libpasscode1's installs beside it), pam_passcode's own (po/pam_passcode) and the front ends'
# (passcode-demo, po/demo). msgfmt --check builds each into build/share/locale, where the library
# in build/ finds them (beside itself: Sources/libpasscode/CPasscodeIntl/passcode_intl.c); make
# install puts the library's and pam_passcode's in LOCALEDIR. po/libpasscode.pot and
# po/pam_passcode/pam_passcode.pot are made from the message table (scripts/gen_messages.py);
# scripts/check_messages.py (make check-header) checks every catalogue against them.
$(B)/share/locale/%/LC_MESSAGES/$(DOMAIN).mo: po/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<
$(B)/share/locale/%/LC_MESSAGES/pam_passcode.mo: po/pam_passcode/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<
$(B)/share/locale/%/LC_MESSAGES/passcode-demo.mo: po/demo/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<

# The build tree's pkg-config file: PKG_CONFIG_PATH=$$PWD/build builds against this checkout
# without installing it, and the rpath it adds runs the program without LD_LIBRARY_PATH.
$(B)/passcode.pc: passcode.pc.in VERSION
	@mkdir -p $(B)
	sed -e 's|@PREFIX@|$(CURDIR)|' -e 's|@LIBDIR@|$(CURDIR)/$(B)|' -e 's|@INCLUDEDIR@|$(CURDIR)/include|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|^Libs: -L\$${libdir}|Libs: -L$${libdir} -Wl,-rpath,$${libdir}|' passcode.pc.in > $@

$(B)/passcode.map: include/passcode.h scripts/gen_version_script.sh scripts/api_model.py
	@mkdir -p $(B)
	scripts/gen_version_script.sh include/passcode.h > $@

# The size of what the static Swift runtime brings (scripts/size_parts.py prints the parts):
#  - lld instead of gold, and with RELR=1 (the default) relative relocations packed as DT_RELR
#    (-z pack-relative-relocs: 0.38 MB less, and less work at load), which needs glibc 2.36 or
#    later to load; `make lib RELR=0` for older systems (about 0.4 MB larger);
#  - the Unicode name tables, which the library never asks for, dropped (Sources/shared/link_trim.c);
#  - a link map (build/libpasscode.linkmap) to tell the parts apart.
RELR ?= 1
LINK_TRIM := -Xswiftc -use-ld=lld $(if $(filter 1,$(RELR)),-Xlinker -z -Xlinker pack-relative-relocs) \
    -Xlinker --wrap=_swift_stdlib_getScalarName -Xlinker --wrap=_swift_stdlib_getNameAlias \
    -Xlinker $(CURDIR)/$(B)/link_trim.o
LINK_SIZE := $(LINK_TRIM) -Xlinker -Map=$(CURDIR)/$(B)/libpasscode.linkmap

# EMBEDDED=1: the library built with Embedded Swift (scripts/embedded_build.sh holds its flags):
# no Swift runtime, no C++ runtime, no libm; NEEDED is libc and libsodium (libsqlite3 is loaded at
# the first store opened: Sources/shared/CSQLite/loader.c). SwiftPM cannot
# build in that mode, so the script calls swiftc and clang itself. EMBEDDED=0: the full Swift
# runtime linked in statically, built by SwiftPM (passcoded and the Swift tests are built so always).
EMBEDDED ?= 1
# The directory test-full-runtime builds the EMBEDDED=0 library into, beside the default one.
FULL_RT := $(B)/full-runtime

# Relinks when the link flags change (make lib RELR=0 after RELR=1, EMBEDDED=1 after 0); written
# without the checkout's path, so that a copy of the tree (deb-test's) finds its build up to date.
$(B)/link-flags: FORCE
	@mkdir -p $(B)
	@echo '$(subst $(CURDIR)/,,$(LINK_SIZE)) EMBEDDED=$(EMBEDDED)' | cmp -s - $@ || echo '$(subst $(CURDIR)/,,$(LINK_SIZE)) EMBEDDED=$(EMBEDDED)' > $@
.PHONY: FORCE
FORCE:

$(B)/link_trim.o: Sources/shared/link_trim.c
	@mkdir -p $(B)
	$(CC) -O2 -fPIC $(STRICT) -c -o $@ $<

# SwiftPM does not recompile a Swift file when only a C header it uses changed: a switch compiled
# before a new enum case stops the process on it (no "switch must be exhaustive"), a constant keeps
# its old number. So every Swift build here depends on this stamp, which touches the Swift sources
# whenever Sources/libpasscode/Passcode/Types/types.h is newer than it.
TYPES_STAMP := $(B)/types-h.stamp
$(TYPES_STAMP): Sources/libpasscode/Passcode/Types/types.h
	@mkdir -p $(B)
	@if [ -e $@ ]; then echo "types.h changed: the Swift sources touched, so that every build recompiles them"; fi
	@touch $$(find Sources Tests/PasscodeCoreTests -name '*.swift') && touch $@

# EMBEDDED=0's library in .build/release, built by SwiftPM with the Swift runtime linked in
# statically; $(1): where its link map goes.
define full_runtime_lib
rm -f .build/release/libpasscode.so  # SwiftPM does not relink when only the map changed
$(SWIFT) build -c release --manifest-cache none --product passcode -Xswiftc -static-stdlib \
    -Xlinker --version-script=$(CURDIR)/$(B)/passcode.map -Xlinker -soname=$(SONAME) \
    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now $(LINK_TRIM) -Xlinker -Map=$(1)
endef

# The Swift runtime is linked in statically (EMBEDDED=0) or not needed (EMBEDDED=1, the default);
# the version script exports the header's functions only.
$(LIB): $(SOURCES) $(TYPES_STAMP) $(B)/passcode.map $(B)/link_trim.o $(B)/link-flags scripts/embedded_build.sh scripts/modules.py
	@scripts/check_swift.sh $(SWIFT)
ifeq ($(EMBEDDED),1)
	SWIFTC="$$(dirname "$$(command -v $(SWIFT))")/swiftc" RELR=$(RELR) scripts/embedded_build.sh $@.tmp $(CURDIR)/$(B)/passcode.map $(SONAME)
	mv $@.tmp $@
else
	$(call full_runtime_lib,$(CURDIR)/$(B)/libpasscode.linkmap)
	cp .build/release/libpasscode.so $@
endif
	ln -sf $(REALNAME) $(B)/$(SONAME)
	ln -sf $(SONAME) $(B)/libpasscode.so

# Regenerate the header from the C types (Sources/libpasscode/Passcode/Types/types.h) and the compiler's
# output for the @c declarations, each function on the man page its @c line names, and every list
# written from a definition (the Swift list of each C enum's cases, before the build;
# scripts/gen_lists.py: passcode(7)'s settings table (docs/passcode.7.md), the Python exceptions).
# The generators after gen_header.py read the header through one model, scripts/api_model.py
# (gen_header.py checks that it reads back what was written); build/api.json is that model.
# The compiler's C header comes with the library's own build (EMBEDDED=1: scripts/embedded_build.sh
# writes it beside its objects; EMBEDDED=0: SwiftPM's release build), so no other build is needed.
COMPILER_HEADER := $(if $(filter 1,$(EMBEDDED)),$(B)/embedded/passcode-swift.h,.build/passcode-swift.h)
GEN_INPUTS := --library $(LIB) $(COMPILER_HEADER)
SWIFT_CASES := Sources/shared/PasscodeCore/PublicEnumCases.swift
header: $(TYPES_STAMP)
	python3 scripts/gen_messages.py
	python3 scripts/gen_bus.py
	python3 scripts/gen_header.py --swift-cases > $(SWIFT_CASES).new
	cmp -s $(SWIFT_CASES).new $(SWIFT_CASES) && rm $(SWIFT_CASES).new || mv $(SWIFT_CASES).new $(SWIFT_CASES)
	$(MAKE) --no-print-directory lib
	python3 scripts/gen_header.py $(GEN_INPUTS) > include/passcode.h.new
	mv include/passcode.h.new include/passcode.h
	python3 scripts/gen_python_enums.py include/passcode.h > python/passcode/_enums.py
	python3 scripts/gen_lists.py $(LIB) include/passcode.h
	python3 scripts/gen_abi.py
	@mkdir -p $(B) && python3 scripts/api_model.py include/passcode.h > $(B)/api.json

# passcoded's interfaces are service/org.libpasscode.Passcode1.xml (its methods, the stores'
# properties, the host's hooks, the app id's rule): the files scripts/gen_bus.py writes from it (the
# vtable and property table, passcoded's dispatch and generated handlers: org.libpasscode.Seam or
# Core, the client's stubs and readers, the hook calls, AppID and pam_passcode's passcode_app_id.h)
# are regenerated into memory and compared; every method must have its handler in passcoded and
# its caller in the client, every property and hook both ends (passcoded sets or asks it, the
# client reads or answers it), and every back-end requirement the client implements must reach
# the bus or say `// bus: local (why)`. Tests/bus/check_bus_detects.py then breaks copies of the tree
# (a property or hook gone from one end, a generated file edited) and wants each refused.
# Plain Python: no build, no bus, no root.
check-bus:
	@python3 scripts/gen_bus.py --check
	@python3 Tests/bus/check_bus_detects.py

# Fails when a layer of Sources/shared/PasscodeCore reaches past its folder (docs/hacking.md "Layout"): SQL
# outside Store/, SQLite, libsodium, the keyring or the TPM called from elsewhere, I/O in Policy/.
check-layers:
	@Tests/layers/check_layers.sh

# Every exported function: a bad-input catalogue case, a Python method (or C_ONLY and why) and a
# service-mode run (or EMBEDDED_ONLY and why). Plain Python over the sources: no build, no root.
check-coverage:
	@python3 scripts/check_coverage.py --self-test
	@python3 scripts/check_coverage.py

# Fails when include/passcode.h, python/passcode/_enums.py or a list written from a definition
# (the Swift list of each C enum's cases, passcode(7)'s settings table, python/passcode/_errors.py;
# from the header, debian/libpasscode0.symbols and python/passcode/_ffi.py's FUNCTIONS: scripts/gen_abi.py)
# differs from what the sources generate, or a function's @c line names no man page (gen_header.py).
# Those read after the header read it through scripts/api_model.py.
check-header: $(TYPES_STAMP) $(LIB)
	@mkdir -p $(B)
	python3 scripts/check_messages.py
	python3 scripts/gen_header.py --swift-cases > $(B)/PublicEnumCases.swift.generated
	@diff -u $(SWIFT_CASES) $(B)/PublicEnumCases.swift.generated && echo "header: $(SWIFT_CASES) matches Sources/libpasscode/Passcode/Types/types.h"
	python3 scripts/gen_header.py $(GEN_INPUTS) > $(B)/passcode.h.generated
	@diff -u include/passcode.h $(B)/passcode.h.generated && echo "header: include/passcode.h matches the Swift sources"
	python3 scripts/gen_python_enums.py include/passcode.h > $(B)/_enums.py.generated
	@diff -u python/passcode/_enums.py $(B)/_enums.py.generated && echo "header: python/passcode/_enums.py matches the header"
	python3 scripts/gen_lists.py $(LIB) include/passcode.h --check
	python3 scripts/gen_abi.py --check
	$(CC) $(STRICT) -Iinclude -x c -fsyntax-only include/passcode.h
	@if command -v clang >/dev/null 2>&1; then clang $(STRICT) -Iinclude -x c -fsyntax-only include/passcode.h; fi
	g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -Iinclude -x c++ -fsyntax-only include/passcode.h
	@echo "header: clean under gcc, clang (c99) and g++ (c++17) with -Wall -Wextra -Wpedantic -Werror"

# Every group runs, also after one failed; the summary names the failed and the skipped ones.
# The groups that touch what the machine shares (test-service's and test-pam's users and PAM file,
# deb-test's installed packages, which test-install and test-wheel must not see) or run passcoded
# (the front ends', GTK's, test-pam-system's, whose make install also writes build/'s service
# files): make test runs them one after the other in a lane of their own, which
# starts once their artefacts are built (test-build-system), beside the other groups
# (Tests/run_groups.sh). The two lanes took about as long in a fresh clone on the 2-core machine.
SYSTEM_GROUPS := test-service deb-test test-gtk test-frontends test-pam test-pam-system test-sandbox test-install test-wheel
TEST_GROUPS := check-header check-docs check-layers check-makefile check-bus check-coverage test-version test-swift test-tsan test-c test-tpm test-fuzz test-hostile test-exports test-full-runtime test-install test-frontends test-gtk test-python test-wheel test-service test-pam test-pam-system deb-test test-sandbox
test: deps
	@Tests/run_groups.sh --build-system test-build-system --build test-build --system "$(SYSTEM_GROUPS)" $(TEST_GROUPS)

# Each configuration of the core built once, and every other artefact a group needs: the
# Embedded library (with the compiler's C header check-header reads); SwiftPM's debug build of
# the tests (test-swift); one release build (passcoded, then the full-runtime library and the
# public enums' check from the same modules); ThreadSanitizer's and the fuzzers' (ASan) builds;
# the C programs. make test makes it with -j2 before the groups.
SWIFT_TESTS := $(wildcard Tests/PasscodeCoreTests/*.swift)
SWIFT_TEST_PRODUCT := libpasscodePackageTests
$(B)/swift-debug.stamp: $(SOURCES) $(TYPES_STAMP) $(SWIFT_TESTS) Tests/PublicEnumCheck/main.swift
	@mkdir -p $(B)
	$(SWIFT) build --product $(SWIFT_TEST_PRODUCT)
	$(SWIFT) build --product public-enum-check
	@touch $@

# The public enums' check (Tests/PublicEnumCheck) from the release modules passcoded is made from.
$(B)/public-enum-check-release: $(SOURCES) $(TYPES_STAMP) Tests/PublicEnumCheck/main.swift $(B)/link_trim.o | $(B)/passcoded
	$(SWIFT) build -c release --product public-enum-check -Xswiftc -static-stdlib \
	    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now $(LINK_TRIM)
	cp .build/release/public-enum-check $@

$(B)/swift-tsan.stamp: $(SOURCES) $(TYPES_STAMP) $(SWIFT_TESTS)
	@mkdir -p $(B)
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product $(SWIFT_TEST_PRODUCT)
	@touch $@

# The system lane's artefacts (SYSTEM_GROUPS: passcoded, the library, the PAM module, the man pages,
# the C programs they run) come first, so that its groups start while the rest is built.
test-build-system: $(B)/passcoded lib docs pam $(B)/test_api examples/c/passcode_demo $(B)/service_client $(B)/sandboxed_quickstart \
    $(B)/service_faults $(SERVICE_AREA_TESTS) $(B)/tpm_service

test-build: test-build-system $(FULL_RT)/$(REALNAME) $(B)/swift-debug.stamp $(B)/public-enum-check-release \
    $(B)/swift-tsan.stamp $(B)/test_catalogue $(B)/crash_harness $(B)/stress $(B)/corrupt $(B)/test_tpm \
    $(B)/fuzz_api $(B)/hostile_store $(B)/compat_old_header $(B)/compat_cxx $(B)/lazy_sqlite $(B)/lazy_sqlite_host \
    $(B)/ceil_check $(B)/random_check

# The list at the top of this file, printed.
help:
	@sed -n '2,/^$$/{s/^# \{0,1\}//;p}' $(firstword $(MAKEFILE_LIST))

# The list at the top names every target, its test groups are TEST_GROUPS in order, and .PHONY
# names each target once (Tests/make/targets.sh).
check-makefile:
	@Tests/make/targets.sh Makefile $(TEST_GROUPS)
	@Tests/make/swift_missing.sh

# VERSION is the one place the version is written; debian/changelog keeps its own, which must match.
# Tracked files only (git grep): build artefacts such as python/build may carry the version.
test-version:
	@v=$$(cat VERSION); re=$$(printf '%s' "$$v" | sed 's/\./\\./g'); d=$$(dpkg-parsechangelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog); \
	    if [ "$${d%%-*}" != "$$v" ]; then echo "version: VERSION says $$v, debian/changelog says $$d" >&2; exit 1; fi; \
	    if { git grep -n -E "\b$$re\b" -- python Sources examples scripts Tests debian Makefile README.md docs 2>/dev/null \
	         || grep -rn -E "\b$$re\b" python Sources examples scripts Tests debian Makefile README.md docs; } | grep -v "^Tests/frontends\|^debian/changelog\|^debian/libpasscode0.symbols"; then \
	        echo "version: the files above write the version; take it from VERSION instead" >&2; exit 1; fi; \
	    echo "version: $$v in VERSION, debian/changelog agrees, no other file writes it"

# Tests that open stores run in a session keyring of their own (keyctl session -), so that
# their keyring entries never reach the user's login session (test_api joins its own).
OWN_SESSION = $$(command -v keyctl >/dev/null && echo keyctl session -)

# The public enums' values are checked in a debug and a release build (Tests/PublicEnumCheck).
# The test bundles are built by their stamps (test-build), so the runs here only run (--skip-build).
SWIFT_FILTER ?=
test-swift: $(TYPES_STAMP) $(B)/swift-debug.stamp $(B)/public-enum-check-release
ifneq ($(SWIFT_FILTER),)
	$(OWN_SESSION) $(SWIFT) test --skip-build --filter '$(SWIFT_FILTER)' 2>&1 | tail -n 25; exit $${PIPESTATUS[0]}
else
	$(OWN_SESSION) $(SWIFT) test --skip-build 2>&1 | tail -n 25; exit $${PIPESTATUS[0]}
	.build/debug/public-enum-check include/passcode.h
	$(B)/public-enum-check-release include/passcode.h
endif

# ThreadSanitizer over the Swift tests that share one handle between threads and processes.
test-tsan: $(TYPES_STAMP) $(B)/swift-tsan.stamp
	$(OWN_SESSION) $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --skip-build --filter 'StoreTests|LockLifecycleTests|AccountTests' 2>&1 \
	    | grep -E 'ThreadSanitizer|Executed .* tests' | tail -n 3; exit $${PIPESTATUS[0]}

API_TESTS := Tests/c/test_api.c $(wildcard Tests/c/api_*.c)
$(B)/test_api: $(API_TESTS) Tests/c/api_support.h Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -DFIXTURES='"$(CURDIR)/Tests/fixtures"' -Iinclude -o $@ $(API_TESTS) -L$(B) -lpasscode -lsqlite3 -Wl,-rpath,'$$ORIGIN'

$(B)/test_tpm: Tests/c/test_tpm.c Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -DATTACK_SCRIPT='"$(CURDIR)/Tests/c/tpm_direct_attack.py"' -DPROVISION_SCRIPT='"$(CURDIR)/scripts/tpm-provision.sh"' -Iinclude -o $@ $< -L$(B) -lpasscode -lsqlite3 -Wl,-rpath,'$$ORIGIN'

# Each enum's first and last value, from the header, for the tests that step past them.
$(B)/enum_bounds.h: include/passcode.h scripts/gen_lists.py scripts/api_model.py
	@mkdir -p $(B)
	python3 scripts/gen_lists.py --enum-bounds include/passcode.h > $@

$(B)/test_catalogue: Tests/c/test_catalogue.c Tests/c/testlib.h include/passcode.h $(B)/enum_bounds.h $(LIB)
	$(CC) $(STRICT) -D_POSIX_C_SOURCE=200809L -Iinclude -I$(B) -o $@ $< -L$(B) -lpasscode -lsqlite3 -Wl,-rpath,'$$ORIGIN'

$(B)/crash_harness: Tests/c/crash_harness.c Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_POSIX_C_SOURCE=200809L -Iinclude -o $@ $< -L$(B) -lpasscode -lsqlite3 -Wl,-rpath,'$$ORIGIN'

$(B)/stress: Tests/c/stress.c Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -lpthread -Wl,-rpath,'$$ORIGIN'

# libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer. The library is built a second
# time with ASan and swiftc's libFuzzer coverage, so the fuzzer is guided by, and ASan checks,
# the Swift code itself. clang from the Swift toolchain ships compiler-rt's fuzzer runtime.
FUZZ_CC ?= $(shell command -v /opt/swift/usr/bin/clang || command -v clang)
FUZZ_SECONDS ?= 15
FUZZ_LIBDIR := .build-fuzz/debug
$(FUZZ_LIBDIR)/libpasscode.so: $(SOURCES) $(TYPES_STAMP)
	$(SWIFT) build --product passcode --scratch-path .build-fuzz --sanitize=address -Xswiftc -sanitize=fuzzer

$(B)/fuzz_api: Tests/fuzz/fuzz_api.c include/passcode.h $(B)/enum_bounds.h $(FUZZ_LIBDIR)/libpasscode.so
	@mkdir -p $(B)
	$(FUZZ_CC) -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -Iinclude -I$(B) -o $@ $< -L$(FUZZ_LIBDIR) -lpasscode -Wl,-rpath,$(CURDIR)/$(FUZZ_LIBDIR) 2>&1 | { grep -v 'Cannot export local symbol' || true; }; exit $${PIPESTATUS[0]}

# The hostile-store fuzzer: every column and row of a store set to boundary and wrongly typed
# values, then the whole API, under ASan and UBSan (Tests/fuzz/hostile_store.c); and the schema
# fuzzer: triggers, views, indexes, tables, columns, changed types and hot journals planted in
# stores of every supported version.
HOSTILE_RANDOM ?= 0
$(B)/hostile_store: Tests/fuzz/hostile_store.c Tests/c/testlib.h include/passcode.h $(FUZZ_LIBDIR)/libpasscode.so
	@mkdir -p $(B)
	$(FUZZ_CC) -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	    -DFIXTURES='"$(CURDIR)/Tests/fixtures"' -Iinclude -o $@ $< -L$(FUZZ_LIBDIR) -lpasscode -lsqlite3 -Wl,-rpath,$(CURDIR)/$(FUZZ_LIBDIR) 2>&1 | { grep -v 'Cannot export local symbol' || true; }; exit $${PIPESTATUS[0]}

test-hostile: $(B)/hostile_store
	cd $(B) && $(OWN_SESSION) ./hostile_store $(HOSTILE_RANDOM) $$RANDOM

# make test: FUZZ_SECONDS of fuzzing; make fuzz: FUZZ_LONG_RUNS executions (or FUZZ_LONG_SECONDS,
# when set, whichever ends first), then HOSTILE_LONG rounds of the hostile-store run. Each execution
# is a program of up to ~2,000 API calls with write transactions: 150 to 300 a second on one core
# of the CI machine, so 10 million take 10 to 18 hours (run it overnight).
# The whole fuzzer output goes to build/fuzz.log; the lines shown are read from it afterwards, so
# the run count, and a failed check's message (fuzz_api: FILE:LINE: check failed: ...), show also
# when the run failed or was interrupted. Swift's own crash backtracer is off (SWIFT_BACKTRACE):
# on an abort it raced libFuzzer's handler and ASan reported a wild read inside it instead.
FUZZ_RUNS ?= -1
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_SECONDS ?= 0
HOSTILE_LONG ?= 10000
SERVICE_FUZZ_LONG ?= 200000
test-fuzz: $(B)/fuzz_api
	mkdir -p $(B)/fuzz-corpus
	@cd $(B) && { SWIFT_BACKTRACE=enable=no $(OWN_SESSION) ./fuzz_api -max_total_time=$(FUZZ_SECONDS) -runs=$(FUZZ_RUNS) -rss_limit_mb=6000 -print_final_stats=1 \
	    fuzz-corpus > fuzz.log 2>&1; rc=$$?; \
	    grep -E '^(INFO: Loaded .* counters|#[0-9]+ *DONE|Done)|^fuzz_api: |ERROR|SUMMARY|interrupted|^ *#[0-9]+ .* in (LLVMFuzzerTestOneInput|check_at|failed) ' fuzz.log; \
	    runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log | tail -n 1); \
	    [ -n "$$runs" ] || runs="$$(grep -oE '^#[0-9]+' fuzz.log | tail -n 1 | tr -d '#') (the last progress line)"; \
	    echo "fuzz: $$runs runs, exit status $$rc (the whole output: $(B)/fuzz.log)"; exit $$rc; }

fuzz:
	$(MAKE) test-fuzz FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) FUZZ_RUNS=$(FUZZ_LONG_RUNS)
	$(MAKE) test-hostile HOSTILE_RANDOM=$(HOSTILE_LONG)
	$(MAKE) test-service SERVICE_FUZZ_CALLS=$(SERVICE_FUZZ_LONG) SERVICE_FUZZ_START=$$RANDOM

$(B)/corrupt: Tests/c/corrupt.c Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

CRASH_ROUNDS ?= 60
VALGRIND := valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite -q

# Short versions of the fault checks run in `make test`; `make crash` and `make valgrind` are the long ones.
# TEST=text runs only the API tests whose name contains it (build/test_api --list names them), nothing else.
TEST ?=
test-c: $(B)/test_api $(B)/test_catalogue $(B)/crash_harness $(B)/stress $(B)/corrupt
ifneq ($(TEST),)
	cd $(B) && TEST= ./test_api '$(TEST)'
	@echo "test-c: only the API tests whose name contains '$(TEST)' ran (without TEST: all of them, the catalogue, crash, stress, corrupt, valgrind)"
else
	@# valgrind's runs (CPU-bound) go on beside the others (test_api mostly waits: hooks, clocks,
	@# fsync); their report is printed when both are done.
	@cd $(B) && rm -f valgrind.log valgrind.status && { { $(VALGRIND) ./test_catalogue > /dev/null && TEST= $(VALGRIND) ./test_api > /dev/null; } \
	    > valgrind.log 2>&1; echo $$? > valgrind.status; } & \
	status=0; \
	for step in "TEST= ./test_api" "./test_catalogue" "$(OWN_SESSION) ./crash_harness $(CRASH_ROUNDS)" \
	            "$(OWN_SESSION) ./stress 8 16 3" "$(OWN_SESSION) ./corrupt 300"; do \
	    echo "cd $(B) && $$step"; (cd $(B) && eval "$$step") || { echo "test-c: FAIL: $$step" >&2; status=1; }; \
	done; \
	wait; cat $(B)/valgrind.log; \
	if [ "$$(cat $(B)/valgrind.status)" = 0 ]; then echo "valgrind memcheck: test_api and test_catalogue clean (no errors, nothing definitely lost)"; \
	else echo "test-c: FAIL: valgrind memcheck (exit status $$(cat $(B)/valgrind.status))" >&2; status=1; fi; \
	exit $$status
endif

# The TPM binding against two swtpm instances the test starts on loopback (passcode-tpm(7),
# docs/passcode-tpm.7.md); scripts/ensure-deps.sh installs swtpm, tpm2-tools and libtss2-dev.
test-tpm: $(B)/test_tpm
	cd $(B) && $(OWN_SESSION) ./test_tpm

crash: $(B)/crash_harness
	cd $(B) && ./crash_harness 1000

stress: $(B)/stress
	cd $(B) && ./stress 16 32 50

corrupt: $(B)/corrupt
	cd $(B) && ./corrupt 5000

valgrind: $(B)/test_api $(B)/test_catalogue
	cd $(B) && $(VALGRIND) ./test_api && $(VALGRIND) ./test_catalogue

# The typed header changes neither the ABI nor callers' source: a program built against the 0.6.1
# header (Tests/fixtures/header-0.6.1) runs against this library, C++ callers of the int32_t header
# still compile and run, and every line of 0.6.1's symbols file is still in debian/libpasscode0.symbols.
$(B)/compat_old_header: Tests/compat/old_header.c Tests/c/testlib.h Tests/fixtures/header-0.6.1/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -ITests/fixtures/header-0.6.1 -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

$(B)/compat_cxx: Tests/compat/cxx_callers.cpp Tests/c/testlib.h include/passcode.h $(LIB)
	g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

$(B)/lazy_sqlite: Tests/abi/lazy_sqlite.c Tests/c/testlib.h
	$(CC) $(STRICT) -o $@ $<

# The same, in a host that links libsqlite3-dev's static SQLite and exports it (-rdynamic).
$(B)/lazy_sqlite_host: Tests/abi/lazy_sqlite.c Tests/c/testlib.h
	$(CC) $(STRICT) -DHOST_SQLITE -rdynamic $$(pkg-config --cflags sqlite3) -o $@ $< \
	    $$(pkg-config --variable=libdir sqlite3)/libsqlite3.a -lm -lpthread -ldl

# The Embedded library's own ceil (Sources/libpasscode/embedded/embedded_libm.c, so that it needs no libm) against libm's.
$(B)/ceil_check: Tests/abi/ceil_check.c Tests/c/testlib.h Sources/libpasscode/embedded/embedded_libm.c
	$(CC) $(STRICT) -O2 -fno-builtin -Dceil=embedded_ceil -c -o $(B)/embedded_ceil.o Sources/libpasscode/embedded/embedded_libm.c
	$(CC) $(STRICT) -O2 -fno-builtin -o $@ Tests/abi/ceil_check.c $(B)/embedded_ceil.o -lm

# Its own arc4random_buf (Sources/libpasscode/embedded/embedded_random.c, so that it needs no glibc 2.36).
$(B)/random_check: Tests/abi/random_check.c Tests/c/testlib.h Sources/libpasscode/embedded/embedded_random.c
	$(CC) $(STRICT) -O2 $$(pkg-config --cflags libsodium) -Darc4random_buf=embedded_arc4random_buf -c -o $(B)/embedded_random.o Sources/libpasscode/embedded/embedded_random.c
	$(CC) $(STRICT) -O2 -o $@ Tests/abi/random_check.c $(B)/embedded_random.o $$(pkg-config --libs libsodium)

test-exports: $(LIB) $(B)/compat_old_header $(B)/compat_cxx $(B)/lazy_sqlite $(B)/lazy_sqlite_host $(B)/ceil_check $(B)/random_check
	EMBEDDED=$(EMBEDDED) Tests/abi/exports.sh $(LIB) include/passcode.h $(CURDIR)/$(B)/lazy_sqlite $(CURDIR)/$(B)/lazy_sqlite_host
	$(B)/ceil_check
	$(B)/random_check
	cd $(B) && ./compat_old_header && ./compat_cxx
	@if grep -vxFf debian/libpasscode0.symbols Tests/fixtures/header-0.6.1/libpasscode0.symbols; then \
	    echo "exports: the lines above of 0.6.1's symbols file are gone from debian/libpasscode0.symbols" >&2; exit 1; fi
	@echo "exports: every symbol of 0.6.1 is kept with its version in debian/libpasscode0.symbols"
	@# Swift's regex library (pulled in by String.contains(String) and friends) adds ~2 MB and text
	@# lintian reads as misspellings: the library must not link it.
	@if grep -q 'libswift_StringProcessing\|libswift_RegexParser' $(B)/libpasscode.linkmap; then \
	    echo "exports: the library links Swift's _StringProcessing/_RegexParser (a String.contains(String)?)" >&2; exit 1; fi
	@echo "exports: Swift's regex library is not linked in"

# EMBEDDED=0 kept building and working while EMBEDDED=1 is the default: the full-runtime library
# built into $(FULL_RT) (the default library is left alone), its exports checked as test-exports
# does, and test_api's key and lock-screen tests run against it.
# The release modules passcoded was built from are reused (the same flags; only the link differs).
$(FULL_RT)/$(REALNAME): $(SOURCES) $(TYPES_STAMP) $(B)/passcode.map $(B)/link_trim.o | $(B)/passcoded
	@mkdir -p $(FULL_RT)
	$(call full_runtime_lib,$(CURDIR)/$(FULL_RT)/libpasscode.linkmap)
	cp .build/release/libpasscode.so $(FULL_RT)/$(REALNAME)
	ln -sf $(REALNAME) $(FULL_RT)/$(SONAME) && ln -sf $(SONAME) $(FULL_RT)/libpasscode.so

test-full-runtime: $(FULL_RT)/$(REALNAME) $(B)/test_api $(B)/lazy_sqlite $(B)/lazy_sqlite_host
	EMBEDDED=0 Tests/abi/exports.sh $(FULL_RT)/$(REALNAME) include/passcode.h $(CURDIR)/$(B)/lazy_sqlite $(CURDIR)/$(B)/lazy_sqlite_host
	cp $(B)/test_api $(FULL_RT)/test_api
	cd $(FULL_RT) && test "$$(ldd ./test_api | grep -c 'libpasscode.so.0 => $(CURDIR)/$(FULL_RT)/')" = 1 \
	    && TEST= ./test_api key && TEST= ./test_api lock
	@echo "test-full-runtime: the EMBEDDED=0 library builds, exports the header's functions and passes test_api's key and lock tests"

# Then, as root, make install && make install-service for the live system, checked and taken back
# out, in a mount namespace with private copies of the system folders (Tests/packaging/live_install.sh;
# not root or no unshare: that part SKIPPED, saying why).
test-install: $(LIB) docs pam $(B)/passcoded
	Tests/packaging/install.sh
	Tests/packaging/live_install.sh

examples/c/passcode_demo: examples/c/passcode_demo.c include/passcode.h $(LIB)
	$(MAKE) -C examples/c PASSCODE_INCLUDE=$(CURDIR)/include PASSCODE_LIBDIR=$(CURDIR)/$(B)

# The C front end on the default store ($$XDG_STATE_HOME/passcode/demo.db, else ~/.local/state/passcode/demo.db).
demo: deps-demo lib examples/c/passcode_demo
	@scripts/demo.sh $(B) $(SONAME)

# The GTK front end under Xvfb (Tests/gtk), in a session keyring of its own (as test-frontends:
# a fingerprint unlock releases the key a passcode unlock kept there); `make screenshots` renews
# docs/screenshots/*.png. As root, the lock screen runs through passcoded too (scripts/try-service.sh).
test-gtk: lib $(B)/passcoded
	$(OWN_SESSION) Tests/gtk/run.sh $(B) $(SONAME)

screenshots: lib $(B)/passcoded
	SCREENSHOT_DIR=$(CURDIR)/docs/screenshots $(OWN_SESSION) Tests/gtk/run.sh $(B) $(SONAME)
	@# The main screens in German (Tests/gtk/language.py): docs/screenshots/de.
	xvfb-run -a -s "-screen 0 1280x1024x24" env -u LC_ALL GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none LANG=C.UTF-8 \
	    LANGUAGE=de_DE.UTF-8 PYTHONPATH=$(CURDIR)/python PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) PYTHONDONTWRITEBYTECODE=1 \
	    /usr/bin/python3 Tests/gtk/language.py $(CURDIR)/docs/screenshots/de "Code eingeben" "Code vergessen?"

test-frontends: examples/c/passcode_demo $(B)/passcoded $(MO_FILES)
	$(OWN_SESSION) Tests/frontends/run.sh examples/c/passcode_demo
	$(OWN_SESSION) Tests/frontends/language.sh examples/c/passcode_demo
	$(OWN_SESSION) Tests/frontends/curses.sh examples/c/passcode_demo
	PYTHONPATH=$(CURDIR)/python PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) Tests/frontends/run.sh python3 examples/python/passcode_demo.py
	PYTHONPATH=$(CURDIR)/python PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) Tests/frontends/language.sh python3 examples/python/passcode_demo.py
	PYTHONPATH=$(CURDIR)/python PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) Tests/frontends/wrap.sh python3 examples/python/passcode_demo.py
	$(OWN_SESSION) Tests/frontends/service.sh $(CURDIR)/$(B)/passcoded examples/c/passcode_demo
	PYTHONPATH=$(CURDIR)/python PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) Tests/frontends/service.sh $(CURDIR)/$(B)/passcoded python3 examples/python/passcode_demo.py

# The Python binding's tests (pytest is installed from PyPI when missing) and the README's quick starts.
PYTEST_ARGS ?=
test-python: lib
	@python3 -m pytest --version >/dev/null 2>&1 || python3 -m pip install -q pytest
ifneq ($(PYTEST_ARGS),)
	PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) python3 -m pytest -q $(PYTEST_ARGS) Tests/python
else
	PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) $(OWN_SESSION) python3 -m pytest -q Tests/python
	Tests/docs/readme.sh
	Tests/packaging/wheel.sh
	PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) Tests/typing/run.sh
endif

# A wheel that carries its library (scripts/build_wheel.sh): build/wheelhouse/passcode-*-py3-none-manylinux_*.whl
# with libpasscode.so.0 and libsodium inside, not libsqlite3.
WHEELHOUSE := $(B)/wheelhouse
wheel: lib
	scripts/build_wheel.sh $(LIB) $(WHEELHOUSE)

# The wheel installed into a fresh venv runs the README's Python quick start with no environment
# variable and no libpasscode known to the dynamic loader (Tests/packaging/wheel_bundle.sh).
test-wheel: wheel
	Tests/packaging/wheel_bundle.sh $$(ls $(WHEELHOUSE)/passcode-*-py3-none-manylinux_*.whl)

# passcoded (passcoded(8)): the store service, with the Swift runtime linked in statically
# as in the library; it links libsystemd itself (libpasscode.so does not).
# The same link as the library's (full RELRO, immediate binding, the Unicode name tables dropped).
$(B)/passcoded: $(DAEMON_SOURCES) $(TYPES_STAMP) $(B)/link_trim.o
	@scripts/check_swift.sh $(SWIFT)
	@mkdir -p $(B)
	$(SWIFT) build -c release --product passcoded -Xswiftc -static-stdlib \
	    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now $(LINK_TRIM)
	cp .build/release/passcoded $@

# The service's files: the daemon, its bus policy, its interface (introspection XML, where system
# services put theirs) and activation file, the systemd unit, and the
# sysusers.d file that makes its user (SYSUSERSDIR= empty: not installed, as debian/rules does,
# whose dh_installsysusers installs it and runs systemd-sysusers).
# The polkit rule (POLKITRULESDIR) lets the passcode user verify fingerprints through fprintd,
# whose defaults refuse a system service.
# The pieces the machine reads from fixed folders go there whatever PREFIX is: the bus policy in
# /etc/dbus-1/system.d, the activation file in /usr/share/dbus-1/system-services (both read by
# every system bus; Debian's also reads /usr/local/share/dbus-1/system-services, which
# DBUSSERVICEDIR= may name), the polkit rule in /etc/polkit-1/rules.d (polkitd reads nothing
# under /usr/local), the sysusers.d file in /etc/sysusers.d. scripts/install.py does the
# installing (make install's too): as root without DESTDIR it refuses, before writing anything,
# a folder the machine does not read and a file a Debian package owns; it prints what it put
# where and lists it in a manifest in MANIFESTDIR, from which make uninstall-service removes
# exactly that. With DESTDIR (debian/rules) the paths are those given, nothing checked.
LIBEXECDIR ?= $(PREFIX)/libexec
SYSTEMDUNITDIR ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
SYSUSERSDIR ?= /etc/sysusers.d
POLKITRULESDIR ?= /etc/polkit-1/rules.d
DBUSPOLICYDIR ?= /etc/dbus-1/system.d
DBUSSERVICEDIR ?= /usr/share/dbus-1/system-services
DBUSINTERFACESDIR ?= $(PREFIX)/share/dbus-1/interfaces
install-service: $(B)/passcoded docs
	@mkdir -p $(B)/install
	sed 's|/usr/libexec|$(LIBEXECDIR)|' service/org.libpasscode.Passcode1.service > $(B)/install/org.libpasscode.Passcode1.service
	sed 's|/usr/libexec|$(LIBEXECDIR)|' service/passcoded.service > $(B)/install/passcoded.service
	@{ echo "file 0755 $(B)/passcoded $(LIBEXECDIR)/passcoded -"; \
	   echo "file 0644 service/org.libpasscode.Passcode1.conf $(DBUSPOLICYDIR)/org.libpasscode.Passcode1.conf DBUSPOLICYDIR"; \
	   echo "file 0644 $(B)/install/org.libpasscode.Passcode1.service $(DBUSSERVICEDIR)/org.libpasscode.Passcode1.service DBUSSERVICEDIR"; \
	   echo "file 0644 service/passcoded-fprintd.rules $(POLKITRULESDIR)/50-passcoded-fprintd.rules POLKITRULESDIR"; \
	   echo "file 0644 $(B)/install/passcoded.service $(SYSTEMDUNITDIR)/passcoded.service SYSTEMDUNITDIR"; \
	   if [ -n "$(SYSUSERSDIR)" ]; then echo "file 0644 service/passcoded.sysusers $(SYSUSERSDIR)/passcoded.conf SYSUSERSDIR"; fi; \
	   echo "file 0644 service/org.libpasscode.Passcode1.xml $(DBUSINTERFACESDIR)/org.libpasscode.Passcode1.xml -"; \
	   echo "file 0644 $(DOCS)/man/man8/passcoded.8 $(MANDIR)/man8/passcoded.8 -"; \
	 } | scripts/install.py install --what install-service --manifest $(MANIFESTDIR)/install-service.manifest --destdir '$(DESTDIR)'

uninstall-service:
	@scripts/install.py uninstall --what uninstall-service --manifest $(MANIFESTDIR)/install-service.manifest --destdir '$(DESTDIR)'

# pam_passcode(8) and passcodectl(8): C, against the library (service mode only) and libpam. No
# rpath: installed, the library is found where make install puts it; the tests set LD_LIBRARY_PATH.
# The module does not link the library: it opens libpasscode.so.0 when first called, by name
# (the loader's cache), else (the copy make install puts on the live system) by LIBDIR's path
# (PASSCODE_LIBRARY_PATH), and says in the log when neither opens (a setuid sudo ignores LD_LIBRARY_PATH, and a
# missing DT_NEEDED library would make libpam skip the module without a word).
# make install puts the module in PAMDIR (the folder this machine's libpam loads modules from:
# pam.pc's securedir, else the security folder beside libpam.so.0; PAMDIR= overrides),
# passcodectl in SBINDIR, their man pages in man8, and the pam-auth-update profile (off by
# default) in PAMCONFIGDIR, the one folder pam-auth-update reads.
PAMDIR ?= $(eval PAMDIR := $$(shell scripts/install.py pamdir))$(PAMDIR)
SBINDIR ?= $(PREFIX)/sbin
PAMCONFIGDIR ?= /usr/share/pam-configs
PAM_CFLAGS := -std=c99 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -Werror -O2 -g -fstack-protector-strong -D_FORTIFY_SOURCE=2
pam: $(B)/pam_passcode.so $(B)/passcodectl

PAM_LINK := -lsodium -lpam -ldl -lpthread -Wl,-z,relro -Wl,-z,now -Wl,--as-needed -Wl,--no-undefined
$(B)/pam_passcode.so: Sources/pam_passcode/pam_passcode.c Sources/pam_passcode/passcode_app_id.h include/passcode.h
	$(CC) $(PAM_CFLAGS) -fPIC -shared -Iinclude -o $@ $< $(PAM_LINK)

# The copy make install puts on the live system (no DESTDIR) also knows where LIBDIR's library is,
# its second choice after the loader's cache; rebuilt when LIBDIR changes. The tested module
# (build/pam_passcode.so), which staged installs and the packages carry, loads it by name only.
$(B)/pam-libdir: FORCE
	@mkdir -p $(B)
	@echo '$(LIBDIR)/$(SONAME)' | cmp -s - $@ || echo '$(LIBDIR)/$(SONAME)' > $@

$(B)/install/pam_passcode.so: Sources/pam_passcode/pam_passcode.c Sources/pam_passcode/passcode_app_id.h include/passcode.h $(B)/pam-libdir
	@mkdir -p $(B)/install
	$(CC) $(PAM_CFLAGS) -fPIC -shared -Iinclude -DPASSCODE_LIBRARY_PATH='"$(LIBDIR)/$(SONAME)"' -o $@ $< $(PAM_LINK)

$(B)/passcodectl: Sources/pam_passcode/passcodectl.c Sources/pam_passcode/passcode_app_id.h include/passcode.h $(LIB)
	$(CC) $(PAM_CFLAGS) -fPIE -pie -Iinclude -o $@ $< -L$(B) -lpasscode -lsodium -Wl,-z,relro -Wl,-z,now -Wl,--as-needed

# The module and passcodectl against passcoded on a private bus, as root (Tests/pam/test_pam.py):
# pam_wrapper with pypamtest and pamtester through a service file it writes and removes, the
# users it makes and removes. Not root: skipped, saying why.
test-pam: $(B)/passcoded pam
	@if [ "$$(id -u)" != 0 ]; then \
	    echo "SKIPPED test-pam: needs root (it creates users, a PAM service file and starts the daemon as root)"; \
	    if [ -n "$${PASSCODE_SKIPPED:-}" ]; then echo "needs root" > "$$PASSCODE_SKIPPED/test-pam"; fi; \
	else /usr/bin/python3 Tests/pam/test_pam.py $(CURDIR)/$(B) $(CURDIR); fi

# The real sudo, su, login and runuser against the installed module, as root
# (Tests/pam/test_pam_system.py): in a private mount namespace (a tmpfs over /run and /dev,
# copy-on-write copies of /etc, /usr and /var), make install and make install-service from this
# checkout, Debian's own system bus (dbus-daemon --system) at /run/dbus/system_bus_socket, passcoded
# started by D-Bus activation, users made in it; nothing outside changes. Not root: skipped, saying
# why (also without unshare, overlayfs, sudo, su or login). PAM_SYSTEM_ONLY=basics|concurrency|kill|faults
# runs one part after the shared set-up; PAM_SYSTEM_TEST_USERS=prefix names the users.
test-pam-system: $(B)/passcoded lib docs pam
	@if [ "$$(id -u)" != 0 ]; then \
	    echo "SKIPPED test-pam-system: needs root (a mount namespace, users, make install inside it, the real sudo, su and login)"; \
	    if [ -n "$${PASSCODE_SKIPPED:-}" ]; then echo "needs root" > "$$PASSCODE_SKIPPED/test-pam-system"; fi; \
	else /usr/bin/python3 Tests/pam/test_pam_system.py $(CURDIR)/$(B) $(CURDIR); fi

# Apps in a sandbox, as root (Tests/sandbox/test_sandbox.py): bubblewrap and xdg-dbus-proxy build
# the sandbox as flatpak does, passcoded runs on a private bus outside as it ships (dropping to its
# user); inside, the C and Python quick starts in service mode and raw calls. Not root, or no
# bwrap or xdg-dbus-proxy: skipped, saying why. SANDBOX_TEST_USERS=prefix names the users.
test-sandbox: $(B)/passcoded lib $(B)/sandboxed_quickstart
	@if [ "$$(id -u)" != 0 ]; then \
	    echo "SKIPPED test-sandbox: needs root (it creates users and starts the daemon as root, which drops to its own user)"; \
	    if [ -n "$${PASSCODE_SKIPPED:-}" ]; then echo "needs root" > "$$PASSCODE_SKIPPED/test-sandbox"; fi; \
	else /usr/bin/python3 Tests/sandbox/test_sandbox.py $(CURDIR)/$(B) $(CURDIR); fi

$(B)/sandboxed_quickstart: Tests/sandbox/sandboxed_quickstart.c include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

# Service mode tried without installing anything (scripts/try-service.sh): as root, a private
# system-like bus with service/'s policy, passcoded for this checkout, a throwaway service user;
# CMD (default: a shell) runs as the sudo caller with DBUS_SYSTEM_BUS_ADDRESS set; all removed after.
# TRY_SERVICE_CONF='smtp_host = ...': lines added to its passcoded.conf (passcoded(8)).
try-service: $(B)/passcoded lib
	scripts/try-service.sh $(B)/passcoded $(CMD)

# The daemon on a private system-like bus, as root: two test users, the promise measured
# (Tests/service/test_service.py). Not root: skipped, saying why. SERVICE_FUZZ_CALLS random calls
# (odd names, signatures and bytes) from SERVICE_FUZZ_START: 300 here, 200,000 in `make fuzz`; as
# many random C API calls in service mode (Tests/service/faults_client.c), from the same seed.
# SERVICE_ONLY=c|python|suites|stall|fprint|tpm|mail|push|harden|logout|standby|nuisance|load runs one part alone (suites:
# the C and Python suites in service mode; c: the C suite, TEST=name to pick; python: the Python suite,
# PYTEST_ARGS=...; standby: 30 uids holding the hook standby threads, the victim's first wait reserved;
# nuisance: Forgot behind a hook, a removed store's log kept; load: 50 uids doing everything at once for
# LOAD_SECONDS (20), the victim's worst waits and passcoded's descriptors, memory and threads printed);
# SERVICE_TEST_USERS=prefix names the users.
SERVICE_FUZZ_CALLS ?= 300
LOAD_SECONDS ?= 20
SERVICE_FUZZ_START ?= 31
# Each area's calls through the service (Tests/service/area_*.c), run by test_service.py.
SERVICE_AREA_TESTS := $(patsubst Tests/service/%.c,$(B)/%,$(wildcard Tests/service/area_*.c))
test-service: $(B)/passcoded $(B)/service_client $(B)/service_faults $(SERVICE_AREA_TESTS) $(B)/tpm_service $(B)/test_api
	@if [ "$$(id -u)" != 0 ]; then \
	    echo "SKIPPED test-service: needs root (it creates users and starts the daemon as root, which drops to its own user)"; \
	    if [ -n "$${PASSCODE_SKIPPED:-}" ]; then echo "needs root" > "$$PASSCODE_SKIPPED/test-service"; fi; \
	else SERVICE_FUZZ_CALLS=$(SERVICE_FUZZ_CALLS) SERVICE_FUZZ_START=$(SERVICE_FUZZ_START) LOAD_SECONDS=$(LOAD_SECONDS) \
	    /usr/bin/python3 Tests/service/test_service.py $(CURDIR)/$(B)/passcoded $(CURDIR) \
	    && if [ -z "$${SERVICE_ONLY:-}" ]; then Tests/service/try_service.sh $(CURDIR)/$(B)/passcoded $(CURDIR); fi; fi

$(B)/area_%: Tests/service/area_%.c Tests/service/service_support.h Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

# The TPM held by passcoded (both postures, swtpm), through the C API in service mode (run by test_service.py).
$(B)/tpm_service: Tests/service/tpm_service.c Tests/service/service_support.h Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

# The C API in service mode, as a user's process against passcoded (run by test_service.py).
$(B)/service_client: Tests/service/service_client.c Tests/service/service_support.h Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

# Faults, load, fork and random calls through the library's client (Tests/service/faults_client.c),
# as users' processes against passcoded (run by test_service.py; its bench rows by make bench-service).
$(B)/service_faults: Tests/service/faults_client.c Tests/service/service_support.h Tests/c/testlib.h include/passcode.h $(LIB)
	$(CC) $(STRICT) -D_DEFAULT_SOURCE -Iinclude -o $@ $< -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

# The Debian packages (libpasscode0, libpasscode-dev, python3-passcode, passcoded) in build/deb,
# built from a copy of the tracked files; the paths are printed at the end.
deb:
	scripts/build_deb.sh $(B)/deb

# Debian packages: build, lintian, install, use from C and Python (needs root for apt-get/dpkg).
deb-test:
	Tests/packaging/deb.sh

# Every row names its baseline (and its bar); a row that cannot measure says why. The bench
# finds the library it was linked with (dladdr), wherever it runs from.
$(B)/bench: Tests/bench/bench.c include/passcode.h $(LIB)
	$(CC) -O2 -D_FORTIFY_SOURCE=2 $(STRICT) -Iinclude -o $(B)/bench Tests/bench/bench.c \
	    $$(pkg-config --cflags --libs libsodium sqlite3) -ldl -L$(B) -lpasscode -Wl,-rpath,'$$ORIGIN'

$(B)/bench_load: Tests/bench/load.c
	$(CC) -O2 $(STRICT) -o $(B)/bench_load Tests/bench/load.c -ldl

$(B)/bench_open_close: Tests/bench/open_close.c
	$(CC) -O2 $(STRICT) -o $(B)/bench_open_close Tests/bench/open_close.c -ldl

# The rows with a median (the poll, open + close, Python's is_set, passcoded's verify) measure
# BENCH_RUNS runs each and give the median run, every run's ratio listed under it.
BENCH_RUNS ?= 5
export PASSCODE_BENCH_RUNS = $(BENCH_RUNS)
BENCH_TOOLS := $(B)/bench $(B)/bench_load $(B)/bench_open_close

bench: lib $(BENCH_TOOLS)
	cd $(B) && ./bench
	PASSCODE_LIBRARY=$(CURDIR)/$(B)/$(SONAME) python3 Tests/bench/bench.py
	python3 scripts/size_parts.py $(LIB)

# The 0.7.0 library (BENCH_BASELINE, its commit), built from this repository's history into
# build/baseline-0.7.0, for make bench's row of open + close against it.
BENCH_BASELINE ?= a336c6d
bench-baseline:
	rm -rf $(B)/baseline-src $(B)/baseline-0.7.0 && mkdir -p $(B)/baseline-src $(B)/baseline-0.7.0
	git archive $(BENCH_BASELINE) | tar -x -C $(B)/baseline-src
	$(MAKE) -C $(B)/baseline-src lib
	cp -a $(B)/baseline-src/build/libpasscode.so* $(B)/baseline-0.7.0/
	rm -rf $(B)/baseline-src

# Only the rows of verify against a bare Argon2id verify, on tmpfs and on disk (bar: 1.05x).
bench-verify: lib $(B)/bench
	cd $(B) && PASSCODE_BENCH_ONLY=verify ./bench

# Only the cheap calls (is_set, the lock-screen poll, against the EMBEDDED=0 build when
# make test-full-runtime built it), open + close and the library's load: a minute, not ten.
bench-calls: lib $(BENCH_TOOLS)
	cd $(B) && PASSCODE_BENCH_ONLY=calls ./bench

# passcoded's bench rows, as root: test_service.py's bus, daemon and users, the store
# root and the embedded store on a tmpfs it mounts; SERVICE_BENCH_COST=OPS,BYTES (default 3, 64 MiB).
bench-service: $(B)/passcoded $(B)/service_client $(B)/service_faults
	@if [ "$$(id -u)" != 0 ]; then echo "SKIPPED bench-service: needs root (users, a bus, the daemon, a tmpfs mount)"; \
	else SERVICE_BENCH=1 /usr/bin/python3 Tests/service/test_service.py $(CURDIR)/$(B)/passcoded $(CURDIR); fi

# Every function has a man page that renders, and the lists that repeat another file (README's
# API at a glance, docs/hacking.md's test groups) are what scripts/gen_doc_lists.py makes of it.
check-docs: docs
	python3 scripts/gen_doc_lists.py --check
	Tests/docs/process_words.sh
	Tests/docs/reference.sh $(DOCS)

# The man pages and the HTML reference, by Doxygen from the header's doc comments and the Markdown
# pages under docs/, named by their section (docs/passcode.7.md is passcode(7), the security
# model; passcode-tpm(7), passcoded(8), passcode-service(3)); scripts/man_pages.py gives each
# page its section and passcode(3) its overview first. Output in build/docs/{man,html}.
DOCS := $(B)/docs
DOC_PAGES := docs/passcode.7.md docs/passcode-tpm.7.md docs/passcoded.8.md docs/passcode-service.3.md docs/pam_passcode.8.md docs/passcodectl.8.md
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
docs: $(DOCS)/man/man7/passcode.7
$(DOCS)/man/man7/passcode.7: include/passcode.h docs/Doxyfile docs/reference.md $(DOC_PAGES) scripts/man_pages.py scripts/api_model.py VERSION Makefile
	@command -v doxygen >/dev/null || { echo "make docs needs doxygen (apt-get install doxygen, or make deps)"; exit 1; }
	rm -rf $(DOCS) && mkdir -p $(DOCS)
	PASSCODE_VERSION=$(VERSION) PASSCODE_DOCS_OUT=$(DOCS) doxygen docs/Doxyfile
	# Doxygen 1.9 writes a sentence that opens with a quote at the start of a line, where troff
	# reads ' as a request: \& keeps it text.
	sed -i "s/^'/\\\\\&'/" $(DOCS)/man/man3/*.3
	# Doxygen writes the string macro's value in single quotes (PASSCODE_VERSION_STRING 'x.y.z'):
	# the page shows the version as it is, without them.
	sed -i "s/\\(PASSCODE_VERSION_STRING\\(\\\\fP\\)\\{0,1\\}  *\\)'\\([^']*\\)'/\\1\\3/" $(DOCS)/man/man3/*.3
	python3 scripts/man_pages.py $(DOCS)
	@# Doxygen also writes a page a struct member (size.3, locked.3, ...): names outside the
	@# library's own that `make install` would put in everyone's man3. The struct's page has them.
	find $(DOCS)/man/man3 -name '*.3' ! -name 'passcode*' ! -name 'PASSCODE_*' -delete
	@echo "docs: $$(ls $(DOCS)/man/man3 | wc -l) section-3 man pages, passcode(7), passcode-tpm(7), passcoded(8), HTML in $(DOCS)/html"

# What make install puts where (scripts/install.py: see install-service above): the library, its
# links, header, pkg-config file, man pages and HTML under PREFIX, the PAM module in PAMDIR and
# the profile in PAMCONFIGDIR; as root without DESTDIR then ldconfig where the library is new to
# the loader's cache, and the installed module loaded under env -i must find it. Not root, the
# module and profile are left out (saying so): a prefix of one's own has the library only.
# The manifest: MANIFESTDIR/install.manifest (make uninstall reads it).
MANIFESTDIR ?= $(PREFIX)/share/libpasscode
install: lib docs pam $(if $(DESTDIR),,$(B)/install/pam_passcode.so)
	@mkdir -p $(B)/install
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' passcode.pc.in > $(B)/install/passcode.pc
	@{ echo "file 0644 $(LIB) $(LIBDIR)/$(REALNAME) LIBDIR"; \
	   echo "link $(REALNAME) $(LIBDIR)/$(SONAME) LIBDIR"; \
	   echo "link $(SONAME) $(LIBDIR)/libpasscode.so LIBDIR"; \
	   echo "file 0644 include/passcode.h $(INCLUDEDIR)/passcode.h -"; \
	   echo "file 0644 $(B)/install/passcode.pc $(PKGCONFIGDIR)/passcode.pc -"; \
	   echo "file 0755 $(B)/passcodectl $(SBINDIR)/passcodectl -"; \
	   echo "file 0644 $(DOCS)/man/man8/pam_passcode.8 $(MANDIR)/man8/pam_passcode.8 -"; \
	   echo "file 0644 $(DOCS)/man/man8/passcodectl.8 $(MANDIR)/man8/passcodectl.8 -"; \
	   echo files 0644 $(MANDIR)/man7 - $(DOCS)/man/man7/*.7; \
	   echo files 0644 $(MANDIR)/man3 - $(DOCS)/man/man3/*.3; \
	   echo "tree $(DOCS)/html $(DOCDIR)/html -"; \
	   for l in $(LINGUAS); do for d in $(DOMAIN) pam_passcode; do \
	       echo "file 0644 $(B)/share/locale/$$l/LC_MESSAGES/$$d.mo $(LOCALEDIR)/$$l/LC_MESSAGES/$$d.mo -"; done; done; \
	   echo "file 0644 Sources/pam_passcode/passcode.pam-config $(PAMCONFIGDIR)/passcode PAMCONFIGDIR"; \
	   echo "file 0644 $(if $(DESTDIR),$(B),$(B)/install)/pam_passcode.so $(PAMDIR)/pam_passcode.so PAMDIR"; \
	 } | scripts/install.py install --what install --manifest $(MANIFESTDIR)/install.manifest --destdir '$(DESTDIR)' \
	     --reads PAMDIR=$$(scripts/install.py pamdir) --libdir $(LIBDIR) --module $(PAMDIR)/pam_passcode.so --tree $(DOCDIR)/html
	@# The Python binding in this tree learns where the library went (python/passcode/_ffi.py
	@# looks there before the dynamic loader: its docstring gives the order), so `pip install
	@# ./python` after a PREFIX install finds it without ldconfig. Staged installs (DESTDIR) and
	@# PASSCODE_RECORD= record nothing.
	@if [ -z "$(DESTDIR)" ] && [ -n "$(PASSCODE_RECORD)" ]; then echo '$(LIBDIR)' > '$(PASSCODE_RECORD)' \
	    && echo "install: recorded $(LIBDIR) in $(PASSCODE_RECORD) for the Python binding"; fi

# Exactly what make install put there (its manifest), pam-auth-update --remove first where the
# profile is among it; nothing else (no PAM stack file, no folder that was there before).
uninstall:
	@scripts/install.py uninstall --what uninstall --manifest $(MANIFESTDIR)/install.manifest --destdir '$(DESTDIR)'
	@if [ -z "$(DESTDIR)" ] && [ -n "$(PASSCODE_RECORD)" ] && [ "$$(cat '$(PASSCODE_RECORD)' 2>/dev/null)" = '$(LIBDIR)' ]; then rm -f '$(PASSCODE_RECORD)'; fi

clean:
	rm -rf $(B) .build .build-tsan .build-fuzz examples/c/passcode_demo
