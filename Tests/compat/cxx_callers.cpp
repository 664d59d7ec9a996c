// C++ callers of the typed header (g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror): code written
// for the int32_t header still compiles: statuses kept in int32_t or int and compared with the
// constants, the enum constants passed where the header now names the enum, and the deprecated
// old names (passcode_event, passcode_security_event and their constants). It also runs.
#include <passcode.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "../c/testlib.h"

static const char *name_of(passcode_status st) {
    switch (st) {  // a switch over the typed status
        case PASSCODE_OK: return "ok";
        case PASSCODE_ERR_WRONG_PASSCODE: return "wrong";
        default: return passcode_strerror(st);
    }
}

int main() {
    char dir[] = "/tmp/passcode-cxx-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    std::string path = std::string(dir) + "/store.db";
    passcode_options *o = nullptr;
    int32_t rc = passcode_options_new(&o);  // int32_t status variables, as before
    CHECK(rc == PASSCODE_OK);
    int irc = passcode_options_set_cost(o, PASSCODE_COST_INTERACTIVE);  // a constant for an enum parameter
    CHECK(irc == PASSCODE_OK);
    CHECK(passcode_options_set_cost_explicit(o, 1, 8192) == PASSCODE_OK);
    passcode_store *s = nullptr;
    rc = passcode_open(path.c_str(), o, &s);
    CHECK(rc == PASSCODE_OK);
    passcode_options_free(o);
    CHECK(passcode_set(s, "386491", 6) == 0);
    passcode_status st = passcode_verify(s, "111111", 6);
    CHECK(std::strcmp(name_of(st), "wrong") == 0);
    int32_t locked = -1;
    passcode_event old_event = PASSCODE_EVENT_LOCK_NOW;  // the deprecated names still compile
    CHECK(passcode_event_report(s, old_event, &locked) == PASSCODE_OK && locked == 1);
    CHECK(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked) == PASSCODE_OK);
    CHECK(passcode_verify(s, "386491", 6) == PASSCODE_OK);
    CHECK(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60) == PASSCODE_OK);
    int64_t v = 0;
    CHECK(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v) == PASSCODE_OK && v == 60);
    CHECK(std::strcmp(passcode_setting_name(PASSCODE_SETTING_AUTO_LOCK_SECONDS), "auto_lock_seconds") == 0);
    passcode_security_event old_kind = PASSCODE_SECURITY_EVENT_FAILED_ATTEMPT;
    CHECK(old_kind == PASSCODE_LOG_KIND_FAILED_ATTEMPT);
    CHECK(std::strcmp(passcode_event_log_kind_name(old_kind), "failed_attempt") == 0);
    CHECK(std::strcmp(passcode_strerror(rc), "success") == 0);  // an int32_t status to passcode_strerror
    passcode_close(s);
    std::string rm = "rm -rf '" + std::string(dir) + "'";
    CHECK_MSG(std::system(rm.c_str()) == 0, "the temporary folder is removed");
    if (tl_failed) { std::fprintf(stderr, "cxx callers: %d checks failed\n", tl_failed); return 1; }
    std::printf("compat: C++ callers of the int32_t header compile against the typed one and run\n");
    return 0;
}
