// The method table of passcoded (see include/passcode_bus.h).
#define _GNU_SOURCE
#include "passcode_bus.h"

#include <grp.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <errno.h>
#include <stddef.h>

static passcode_bus_handler current_handler;

static int on_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    if (!current_handler) return -ENOSYS;
    const char *member = sd_bus_message_get_member(m);
    return current_handler(m, member ? member : "", error);
}

// Every method: app_id first ('s'); statuses come back as D-Bus errors
// org.libpasscode.Error.<Name>, whose message starts with "[status N] ".
// Secrets ('passcode', 'current', 'new') are ASCII digits.
static const sd_bus_vtable passcode_vtable[] = {
    SD_BUS_VTABLE_START(0),
    // (is_set, lock_enabled, failed_attempts, lockout_remaining_seconds, reset_required)
    SD_BUS_METHOD_WITH_NAMES("GetState", "s", SD_BUS_PARAM(app_id),
                             "bbuxb", SD_BUS_PARAM(is_set) SD_BUS_PARAM(lock_enabled) SD_BUS_PARAM(failed_attempts)
                             SD_BUS_PARAM(lockout_remaining) SD_BUS_PARAM(reset_required),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The same for another uid: root only.
    SD_BUS_METHOD_WITH_NAMES("GetStateForUser", "us", SD_BUS_PARAM(uid) SD_BUS_PARAM(app_id),
                             "bbuxb", SD_BUS_PARAM(is_set) SD_BUS_PARAM(lock_enabled) SD_BUS_PARAM(failed_attempts)
                             SD_BUS_PARAM(lockout_remaining) SD_BUS_PARAM(reset_required),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SetPasscode", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // A wrong passcode is an error reply (WrongPasscode, LockedOut, ...); success: (unlocked, 0).
    SD_BUS_METHOD_WITH_NAMES("Verify", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "bx", SD_BUS_PARAM(unlocked) SD_BUS_PARAM(lockout_remaining),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ChangePasscode", "sss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(current) SD_BUS_PARAM(new_passcode),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("RemovePasscode", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(current),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // Removes the whole store of app_id (its file goes, freeing one of the uid's stores): with
    // its passcode when one is set, "" when none is (passcode_store_remove).
    SD_BUS_METHOD_WITH_NAMES("RemoveStore", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // Turns the lock off after checking the passcode (kept stored), and on again.
    SD_BUS_METHOD_WITH_NAMES("DisablePasscode", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(current),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("EnablePasscode", "s", SD_BUS_PARAM(app_id),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // What a lock screen draws (passcode_lock_screen_read): the lock_reason, biometric_refusal
    // and biometric_kind as the C enums' values.
    SD_BUS_METHOD_WITH_NAMES("GetLockScreen", "s", SD_BUS_PARAM(app_id),
                             "bixubibibb", SD_BUS_PARAM(locked) SD_BUS_PARAM(reason) SD_BUS_PARAM(lockout_remaining)
                             SD_BUS_PARAM(failed_attempts) SD_BUS_PARAM(reset_required) SD_BUS_PARAM(refusal)
                             SD_BUS_PARAM(lead) SD_BUS_PARAM(kind) SD_BUS_PARAM(is_set)
                             SD_BUS_PARAM(lock_enabled),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The number of digits (passcode_length), and setting it while no passcode is set.
    SD_BUS_METHOD_WITH_NAMES("GetLength", "s", SD_BUS_PARAM(app_id),
                             "i", SD_BUS_PARAM(length), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SetLength", "si", SD_BUS_PARAM(app_id) SD_BUS_PARAM(length),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("GetSetting", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(name),
                             "x", SD_BUS_PARAM(value), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // A weakening change needs the passcode entered on this connection within 5 minutes (a
    // Verify, SetPasscode, ChangePasscode, ... of the same connection: the service keeps that
    // proof per connection), and the app unlocked, as the core asks it embedded.
    SD_BUS_METHOD_WITH_NAMES("SetSetting", "ssx", SD_BUS_PARAM(app_id) SD_BUS_PARAM(name) SD_BUS_PARAM(value),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // ---- lock, app events, biometric policy, the security log (Service+Lock.swift) ----
    // A passcode_app_event; the reporting process is the caller the bus names (its pid, and
    // its start time from /proc). Answers the lock state after it (a passcode_lock_reason).
    SD_BUS_METHOD_WITH_NAMES("ReportEvent", "si", SD_BUS_PARAM(app_id) SD_BUS_PARAM(event),
                             "bi", SD_BUS_PARAM(locked) SD_BUS_PARAM(reason), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The host's report of the device's biometrics (a passcode_biometric_kind): no setting
    // changes. A biometric match is never reported here (the service refuses the host's word).
    SD_BUS_METHOD_WITH_NAMES("SetBiometricAvailability", "sbi", SD_BUS_PARAM(app_id) SD_BUS_PARAM(available) SD_BUS_PARAM(kind),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // A failed match counts against biometrics only; answers the failures since the last unlock.
    SD_BUS_METHOD_WITH_NAMES("BiometricFailed", "s", SD_BUS_PARAM(app_id),
                             "x", SD_BUS_PARAM(failures), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The security log, newest first: (passcode_log_kind, wall-clock ms, detail).
    SD_BUS_METHOD_WITH_NAMES("GetEventLog", "s", SD_BUS_PARAM(app_id),
                             "a(ixs)", SD_BUS_PARAM(events), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // Whether the store is bound to a TPM (the service's choice; this release binds none).
    SD_BUS_METHOD_WITH_NAMES("IsTPMBound", "s", SD_BUS_PARAM(app_id),
                             "b", SD_BUS_PARAM(bound), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // passcode_failure_summary: the failures, whether one is known, and its wall-clock ms.
    SD_BUS_METHOD_WITH_NAMES("GetFailureSummary", "s", SD_BUS_PARAM(app_id),
                             "ubx", SD_BUS_PARAM(failures) SD_BUS_PARAM(has_last) SD_BUS_PARAM(last_wall_ms),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // A custom lockout table of 1 to 100 delays (seconds). Any change of it weakens: it needs
    // the connection's proof, as SetSetting.
    SD_BUS_METHOD_WITH_NAMES("SetCustomSchedule", "sauu", SD_BUS_PARAM(app_id) SD_BUS_PARAM(delays) SD_BUS_PARAM(max_failures),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // ---- end of lock ----
    // ---- reset, account, sessions, recovery key (Service+Account.swift) ----
    // Reset by code, but for the request (no code is ever handed to the caller). Codes,
    // passcodes, passwords and the recovery key are 'ay': their exact bytes, sensitive.
    SD_BUS_METHOD_WITH_NAMES("ResetRetryAfter", "s", SD_BUS_PARAM(app_id),
                             "x", SD_BUS_PARAM(seconds), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ResetCheck", "say", SD_BUS_PARAM(app_id) SD_BUS_PARAM(code),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // key_replaced: done, and the data key the host had been given was replaced (KEY_REPLACED).
    SD_BUS_METHOD_WITH_NAMES("ResetComplete", "sayay", SD_BUS_PARAM(app_id) SD_BUS_PARAM(code) SD_BUS_PARAM(new_passcode),
                             "b", SD_BUS_PARAM(key_replaced), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ResetCompleteWithRecoveryKey", "sayayay",
                             SD_BUS_PARAM(app_id) SD_BUS_PARAM(code) SD_BUS_PARAM(new_passcode) SD_BUS_PARAM(recovery_key),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ResetPending", "s", SD_BUS_PARAM(app_id),
                             "b", SD_BUS_PARAM(pending), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Forgot", "s", SD_BUS_PARAM(app_id),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The recovery key wraps the data key the caller's passcode (entered on its handle within
    // 5 minutes, checked again in the same call) releases; "" when it has none.
    SD_BUS_METHOD_WITH_NAMES("SetRecoveryKey", "sayay", SD_BUS_PARAM(app_id) SD_BUS_PARAM(recovery_key) SD_BUS_PARAM(passcode),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ClearRecoveryKey", "s", SD_BUS_PARAM(app_id),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("HasRecoveryKey", "s", SD_BUS_PARAM(app_id),
                             "b", SD_BUS_PARAM(has_recovery_key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("PasswordChangeCheck", "sayayay",
                             SD_BUS_PARAM(app_id) SD_BUS_PARAM(current) SD_BUS_PARAM(new_password) SD_BUS_PARAM(confirmation),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("DeleteAccount", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(confirmation),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // Device sessions: location is read only when has_location is non-zero; is_current 0 or 1.
    SD_BUS_METHOD_WITH_NAMES("SessionRecord", "ssssxisi",
                             SD_BUS_PARAM(app_id) SD_BUS_PARAM(id) SD_BUS_PARAM(device_name) SD_BUS_PARAM(platform)
                             SD_BUS_PARAM(last_active_ms) SD_BUS_PARAM(has_location) SD_BUS_PARAM(location)
                             SD_BUS_PARAM(is_current),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // (id, device_name, platform, last_active_ms, has_location, location, is_current), in the
    // order of passcode_session_list_new.
    SD_BUS_METHOD_WITH_NAMES("SessionList", "s", SD_BUS_PARAM(app_id),
                             "a(sssxbsb)", SD_BUS_PARAM(sessions), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SessionSignOut", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(id),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // Those whose sign-out hook failed stay; the first failure's message when failed.
    SD_BUS_METHOD_WITH_NAMES("SessionSignOutOthers", "s", SD_BUS_PARAM(app_id),
                             "ubs", SD_BUS_PARAM(signed_out) SD_BUS_PARAM(failed) SD_BUS_PARAM(failure),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // ---- end of account ----
    // ---- the data key, sealing, flows (Service+Key.swift) ----
    // A correct passcode answered by the 32-byte data key (a sensitive reply); a wrong one is an
    // error reply, counted as Verify counts it. UnlockKey records that the host has the key
    // (passcode_unlock_key); VerifyKey (passcode_verify, a flow's step) leaves that to MarkKeyUsed.
    SD_BUS_METHOD_WITH_NAMES("UnlockKey", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "ay", SD_BUS_PARAM(key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("VerifyKey", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "ay", SD_BUS_PARAM(key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // SetPasscode, ChangePasscode and DisablePasscode answered by the data key.
    SD_BUS_METHOD_WITH_NAMES("SetPasscodeKey", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(passcode),
                             "ay", SD_BUS_PARAM(key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ChangePasscodeKey", "sss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(current) SD_BUS_PARAM(new_passcode),
                             "ay", SD_BUS_PARAM(key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("DisablePasscodeKey", "ss", SD_BUS_PARAM(app_id) SD_BUS_PARAM(current),
                             "ay", SD_BUS_PARAM(key), on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // The host uses the key it holds (it sealed with it, or took a flow's): a reset that must
    // replace the key then says so.
    SD_BUS_METHOD_WITH_NAMES("MarkKeyUsed", "s", SD_BUS_PARAM(app_id),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // ---- end of key ----
    // ---- callbacks and hooks asked of the host (Service+Hooks.swift) ----
    // Which of the host's callbacks this connection has (bits: 1 settings hook, 2 lifecycle,
    // 4 session hook, 8 logout, 16 notice, 32 account deleted; 0: none). Until the connection
    // goes, passcoded asks them on its object /org/libpasscode/Hook (org.libpasscode.Hook1:
    // SettingChange(sss)->s, Lifecycle(i)->s, SessionSignOut(s)->s: "" allows, else the refusal;
    // Logout(i), Notice(i), AccountDeleted(), no reply) while one of its calls runs.
    SD_BUS_METHOD_WITH_NAMES("SetHooks", "su", SD_BUS_PARAM(app_id) SD_BUS_PARAM(flags),
                             "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    // ---- end of hooks ----
    // The caller's store app_id as now, and its PropertiesChanged from now on, addressed to this
    // connection alone (Service+Properties.swift, passcode_bus_props.h): (path, generation,
    // settled (clock-free: no field depends on the time), then GetState's and GetLockScreen's fields).
    SD_BUS_METHOD_WITH_NAMES("Watch", "s", SD_BUS_PARAM(app_id),
                             "sxbbbuxbbiibi", SD_BUS_PARAM(path) SD_BUS_PARAM(generation) SD_BUS_PARAM(settled)
                             SD_BUS_PARAM(is_set) SD_BUS_PARAM(lock_enabled) SD_BUS_PARAM(failed_attempts)
                             SD_BUS_PARAM(lockout_remaining) SD_BUS_PARAM(reset_required) SD_BUS_PARAM(locked)
                             SD_BUS_PARAM(reason) SD_BUS_PARAM(refusal) SD_BUS_PARAM(lead) SD_BUS_PARAM(kind),
                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

int passcode_bus_add_object(sd_bus *bus, passcode_bus_handler handler) {
    current_handler = handler;
    return sd_bus_add_object_vtable(bus, NULL, PASSCODE_BUS_PATH, PASSCODE_BUS_INTERFACE, passcode_vtable, NULL);
}

int passcode_bus_sender_uid(sd_bus_message *m, uid_t *out) {
    sd_bus_creds *creds = NULL;
    int r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID, &creds);
    if (r < 0) return r;
    uint64_t augmented = sd_bus_creds_get_augmented_mask(creds);
    uid_t uid;
    if (!(augmented & SD_BUS_CREDS_EUID) && sd_bus_creds_get_euid(creds, &uid) >= 0) {
        r = 0;
    } else if (!(augmented & SD_BUS_CREDS_UID) && sd_bus_creds_get_uid(creds, &uid) >= 0) {
        r = 0;
    } else {
        r = -EPERM;
    }
    sd_bus_creds_unref(creds);
    if (r == 0) *out = uid;
    return r;
}

int passcode_bus_sender_pid(sd_bus_message *m, pid_t *out) {
    sd_bus_creds *creds = NULL;
    int r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_PID, &creds);
    if (r < 0) return r;
    pid_t pid = 0;
    if (!(sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_PID) && sd_bus_creds_get_pid(creds, &pid) >= 0 && pid > 0) {
        r = 0;
    } else {
        r = -EPERM;
    }
    sd_bus_creds_unref(creds);
    if (r == 0) *out = pid;
    return r;
}

int passcode_bus_read_string(sd_bus_message *m, const char **out) {
    return sd_bus_message_read_basic(m, 's', out);
}

const char *passcode_bus_drop_privileges(uid_t uid, gid_t gid) {
    if (uid == 0 || gid == 0) return "the service user must not be root";
    if (setgroups(0, NULL) != 0) return "setgroups failed";
    if (setresgid(gid, gid, gid) != 0) return "setresgid failed";
    if (setresuid(uid, uid, uid) != 0) return "setresuid failed";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return "PR_SET_NO_NEW_PRIVS failed";
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0) return "getresuid failed";
    if (ruid != uid || euid != uid || suid != uid || rgid != gid || egid != gid || sgid != gid)
        return "the uids or gids did not all change";
    if (getgroups(0, NULL) != 0) return "supplementary groups remain";
    // For good: root cannot come back.
    if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0 || setegid(0) == 0) return "root could be regained after the drop";
    return NULL;
}

int passcode_bus_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

static passcode_bus_gone_handler gone_handler;

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (gone_handler && name && name[0] == ':' && new_owner && new_owner[0] == 0) gone_handler(name);
    return 0;
}

int passcode_bus_watch_gone(sd_bus *bus, passcode_bus_gone_handler handler) {
    gone_handler = handler;
    return sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameOwnerChanged", on_name_owner_changed, NULL);
}
