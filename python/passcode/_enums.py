"""The header's enums, as Python enums. GENERATED from include/passcode.h by
scripts/gen_python_enums.py (`make header`); do not edit."""
from enum import IntEnum


class Status(IntEnum):
    """The result of every libpasscode call that can fail. 0 is success; values are only ever
    appended, never renumbered. passcode_strerror gives a short text for each, and
    passcode_errmsg the detailed message of a handle's last failure. (passcode_status)"""
    OK = 0
    ERR_MISUSE = 1
    ERR_INVALID_HANDLE = 2
    ERR_FORMAT = 3
    ERR_WRONG_PASSCODE = 4
    ERR_WEAK_PASSCODE = 5
    ERR_NO_PASSCODE = 6
    ERR_ALREADY_SET = 7
    ERR_LOCKED_OUT = 8
    ERR_RESET_REQUIRED = 9
    ERR_NOT_FOUND = 10
    ERR_IS_DIRECTORY = 11
    ERR_READ_ONLY = 12
    ERR_NOT_A_STORE = 13
    ERR_NEWER_SCHEMA = 14
    ERR_CORRUPT = 15
    ERR_FULL = 16
    ERR_BUSY = 17
    ERR_IO = 18
    ERR_NO_MEM = 19
    ERR_PERMISSION = 20
    ERR_INVALID_SETTING = 21
    ERR_STATE = 22
    ERR_HOOK_FAILED = 23
    ERR_BIOMETRIC_UNAVAILABLE = 24
    ERR_PASSCODE_REQUIRED = 25
    ERR_LOGGED_OUT = 26
    ERR_BUFFER_TOO_SMALL = 27
    ERR_INTERNAL = 28
    ERR_RATE_LIMITED = 29
    ERR_NO_RESET_CODE = 30
    ERR_WRONG_RESET_CODE = 31
    ERR_RESET_CODE_EXPIRED = 32
    ERR_RESET_CODE_REPLACED = 33
    ERR_PASSWORD_EMPTY = 34
    ERR_PASSWORD_TOO_SHORT = 35
    ERR_PASSWORD_TOO_LONG = 36
    ERR_PASSWORD_MISMATCH = 37
    ERR_SESSION_NOT_FOUND = 38
    ERR_SESSION_IS_CURRENT = 39
    ERR_CONFIRMATION_MISMATCH = 40
    ERR_CALLBACK_REQUIRED = 41
    ERR_TAMPERED = 42
    ERR_WIPE_PENDING = 43
    ERR_WRONG_PEPPER = 44
    ERR_APP_LOCKED = 45
    ERR_KEY_NOT_RELEASED = 46
    ERR_BAD_CIPHERTEXT = 47
    ERR_FOREIGN_CIPHERTEXT = 48
    ERR_KEY_REPLACED = 49
    ERR_WRONG_RECOVERY_KEY = 50
    ERR_TPM_UNAVAILABLE = 51
    ERR_TPM_REQUIRED = 52
    ERR_TPM_MISMATCH = 53
    ERR_TPM_LOCKOUT = 54
    ERR_TPM_ROLLBACK = 55
    ERR_TPM = 56
    ERR_FOREIGN_SCHEMA = 57
    ERR_NO_SESSION_KEYRING = 58
    ERR_CLOCK_OUT_OF_RANGE = 59
    ERR_TPM_GUESS_LIMIT = 60
    ERR_TPM_OWNER_AUTH = 61
    ERR_REFUSED_IN_SERVICE_MODE = 62
    ERR_SERVICE_UNAVAILABLE = 63
    ERR_NOT_IN_SERVICE_MODE = 64
    ERR_STORE_REMOVED = 65
    ERR_RESET_DELIVERY_UNAVAILABLE = 66
    ERR_BIOMETRIC_TIMEOUT = 67
    ERR_BIOMETRIC_READER_BUSY = 68
    ERR_SANDBOX_WRONG_APP = 69
    ERR_SANDBOX_STORE_OF_ANOTHER_APP = 70
    ERR_SANDBOX_UNVERIFIED = 71


class Cost(IntEnum):
    """The Argon2id presets of passcode_options_set_cost. (passcode_cost)"""
    INTERACTIVE = 0
    MODERATE = 1
    SENSITIVE = 2


class AppEvent(IntEnum):
    """What the host reports about the app (passcode_app_event). (passcode_app_event)"""
    LAUNCHED = 0
    BACKGROUND = 1
    FOREGROUND = 2
    LOCK_NOW = 3


class LockReason(IntEnum):
    """Why the app is locked (passcode_lock_state's reason). (passcode_lock_reason)"""
    NONE = 0
    LAUNCH = 1
    BACKGROUND = 2
    REQUESTED = 3
    RESTART = 4
    LOGGED_OUT = 5


class BiometricRefusal(IntEnum):
    """Why biometrics may not unlock now (passcode_biometric_unlock's out value).
    (passcode_biometric_refusal)"""
    NONE = 0
    FIRST_UNLOCK_AFTER_LAUNCH = 1
    PASSCODE_NOT_USED_FOR_48_HOURS = 2
    TOO_MANY_BIOMETRIC_FAILURES = 3
    LOCKED_OUT = 4
    LOCK_DISABLED = 5
    BIOMETRIC_NOT_ENABLED = 6
    BIOMETRIC_UNAVAILABLE = 7
    NO_PASSCODE = 8
    RESET_REQUIRED = 9
    DEVICE_RESTARTED = 10
    KEY_NOT_IN_MEMORY = 11


class BiometricKind(IntEnum):
    """What the host reports about biometrics (passcode_biometric_kind).
    (passcode_biometric_kind)"""
    NONE = 0
    FACE_ID = 1
    TOUCH_ID = 2
    OTHER = 3
    FINGERPRINT = 4


class LogKind(IntEnum):
    """What happened (passcode_event_log_get). (passcode_log_kind)"""
    FAILED_ATTEMPT = 0
    LOCKOUT_STARTED = 1
    UNLOCKED_BY_PASSCODE = 2
    UNLOCKED_BY_BIOMETRICS = 3
    BIOMETRIC_FAILED = 4
    MAX_FAILURES_REACHED = 5
    PASSCODE_SET = 6
    PASSCODE_CHANGED = 7
    PASSCODE_DISABLED = 8
    PASSCODE_ENABLED = 9
    PASSCODE_REMOVED = 10
    RESET_CODE_REQUESTED = 11
    RESET_CODE_DELIVERED = 12
    RESET_CODE_DELIVERY_FAILED = 13
    RESET_COMPLETED = 14
    RESET_CODE_EXPIRED = 15
    FORGOT_PASSCODE = 16
    SETTING_CHANGED = 17
    SESSION_SIGNED_OUT = 18
    ACCOUNT_DELETED = 19
    TAMPER_DETECTED = 20
    TPM_ROLLBACK = 21


class FlowKind(IntEnum):
    """The task a flow performs (passcode_flow_new). (passcode_flow_kind)"""
    UNLOCK = 0
    CREATE = 1
    CHANGE = 2
    DISABLE = 3
    RESET = 4


class FlowStep(IntEnum):
    """Where a flow is (passcode_flow_step). (passcode_flow_step)"""
    ENTER_PASSCODE = 0
    ENTER_CURRENT = 1
    ENTER_NEW = 2
    CONFIRM_NEW = 3
    ENTER_CODE = 4
    LOCKED_OUT = 5
    FINISHED = 6


class FlowResult(IntEnum):
    """How a flow ended, or that it has not (passcode_flow_result). (passcode_flow_result)"""
    IN_PROGRESS = 0
    SUCCESS = 1
    CANCELLED = 2
    LOCKED_OUT = 3
    NEEDS_RESET = 4
    LOGGED_OUT = 5
    FAILED = 6


class MaxFailureAction(IntEnum):
    """What happens at the maximum number of failures. (passcode_max_failure_action)"""
    REQUIRE_RESET = 0
    FORCED_LOGOUT = 1
    NONE = 2


class Schedule(IntEnum):
    """The lockout tables a store can use (PASSCODE_SETTING_LOCKOUT_SCHEDULE).
    (passcode_lockout_schedule)"""
    APPLE = 0
    ANDROID = 1
    CUSTOM = 2


class Notice(IntEnum):
    """What the host is told through its notification callback (passcode_notice).
    (passcode_notice)"""
    PASSCODE_RESET = 1


class LogoutReason(IntEnum):
    """Why the library asks the host to log the user out (passcode_set_logout_callback).
    (passcode_logout_reason)"""
    MAX_FAILURES = 1
    FORGOT_PASSCODE = 2


class LifecycleEvent(IntEnum):
    """A change of the passcode's life the host may mirror on its backend
    (passcode_set_lifecycle_callback). The callback hears which, never digits or hashes.
    (passcode_lifecycle_event)"""
    SET = 1
    CHANGED = 2
    RESET = 3
    DISABLED = 4
    ENABLED = 5
    REMOVED = 6
    FORGOT = 7


class Setting(IntEnum):
    """The settings a host can read and change (passcode_setting). Each one's last sentence
    (made from its definition, Setting.spec) gives its stored name, default, values and the
    changes that weaken protection: with a passcode set, those need the passcode entered on the
    same handle within 5 minutes (passcode_authorize); no setting changes while the app is
    locked. (passcode_setting)"""
    LOCK_ENABLED = 0
    AUTO_LOCK_SECONDS = 1
    LOCK_AT_LAUNCH = 2
    LOCKOUT_SCHEDULE = 3
    MAX_FAILURE_ACTION = 4
    BIOMETRIC_ENABLED = 5
    REQUIRE_BIOMETRIC_ON_LAUNCH = 6
    TWO_FACTOR_ENABLED = 7
    LAST_PASSWORD_CHANGE = 8
    PASSCODE_LENGTH = 9
    RESET_CODE_LENGTH = 10
    RESET_CODE_LIFETIME_SECONDS = 11
    RESET_REQUEST_INTERVAL_SECONDS = 12
    RESET_REQUESTS_PER_DAY = 13
    PASSCODE_AFTER_EVERY_LAUNCH = 14


class TpmPostureItem(IntEnum):
    """What passcode_tpm_posture reports, one value per call. (passcode_tpm_posture_item)"""
    OWNER_AUTH_SET = 0
    LOCKOUT_AUTH_SET = 1
    MAX_TRIES = 2
    RECOVERY_TIME = 3
    LOCKOUT_RECOVERY = 4
    LOCKOUT_COUNTER = 5
    NO_OFFLINE_SEARCH = 6
    HARDWARE_GUESS_LIMIT = 7
    GUESS_LIMIT = 8


class MessageTopic(IntEnum):
    """What passcode_message_of() turns into a passcode_message. (passcode_message_topic)"""
    BIOMETRIC_REFUSAL = 0
    SECURITY_LABEL = 1
    LOG_KIND = 2


class Message(IntEnum):
    """Every message libpasscode may show a person, with a stable code: a host with its own
    translations shows its text for the code, and passcode_message_text() gives the library's,
    in the host's language. GENERATED from Types/messages.txt by scripts/gen_messages.py. Values
    are only ever appended; the PAM_ ones (500 on) are pam_passcode(8)'s. (passcode_message)"""
    NONE = 0
    ENTER_PASSCODE = 1
    ENTER_PASSCODE_TO_DISABLE = 2
    ENTER_CURRENT_PASSCODE = 3
    ENTER_NEW_PASSCODE = 4
    CONFIRM_NEW_PASSCODE = 5
    ENTER_RESET_CODE = 6
    ENTER_A_NEW_PASSCODE = 7
    ENTER_A_PASSCODE = 8
    CONFIRM_PASSCODE = 9
    PASSCODE_LOCKED = 10
    FLOW_DONE = 11
    FLOW_CANCELLED = 12
    PASSCODE_RESET_REQUIRED = 13
    FLOW_LOGGED_OUT = 14
    FLOW_STOPPED = 15
    INCORRECT_PASSCODE = 20
    TRY_AGAIN_IN_SECONDS = 21
    TRY_AGAIN_IN_MINUTES = 22
    PASSCODES_DONT_MATCH = 23
    WEAK_RUN = 24
    WEAK_COMMON = 25
    WEAK_REPEATED_GROUP = 26
    WEAK_REPEATED_PAIR = 27
    WEAK_DOUBLED_DIGITS = 28
    WEAK_MIRRORED = 29
    WEAK_DATE = 30
    WEAK_PASSCODE = 31
    WRONG_CODE_TRIES_LEFT = 32
    WRONG_CODE_DISCARDED = 33
    WRONG_CODE = 34
    RESET_CODE_EXPIRED = 35
    NO_RESET_CODE = 36
    RESET_DATA_NOT_KEPT = 37
    RESET_REQUIRED = 38
    LOGGED_OUT_AFTER_FAILURES = 39
    NO_PASSCODE = 40
    ALREADY_SET = 41
    SERVICE_UNAVAILABLE = 42
    STORE_FAILED = 43
    SOMETHING_WENT_WRONG = 44
    TPM_LOCKED_MINUTES = 45
    TPM_RESET_REQUIRED = 46
    PASSCODE_NEEDED = 47
    APP_LOCKED = 48
    CHANGE_REFUSED = 49
    LABEL_PASSCODE_BIOMETRIC = 50
    LABEL_PASSCODE_FACE_ID = 51
    LABEL_PASSCODE_TOUCH_ID = 52
    LABEL_PASSCODE_FINGERPRINT = 53
    BIOMETRIC_FIRST_UNLOCK = 61
    BIOMETRIC_PASSCODE_48_HOURS = 62
    BIOMETRIC_TOO_MANY_FAILURES = 63
    BIOMETRIC_LOCKED_OUT = 64
    BIOMETRIC_LOCK_DISABLED = 65
    BIOMETRIC_NOT_ENABLED = 66
    BIOMETRIC_UNAVAILABLE = 67
    BIOMETRIC_NO_PASSCODE = 68
    BIOMETRIC_RESET_REQUIRED = 69
    BIOMETRIC_DEVICE_RESTARTED = 70
    BIOMETRIC_KEY_NOT_IN_MEMORY = 71
    LOG_FAILED_ATTEMPT = 80
    LOG_LOCKOUT_STARTED = 81
    LOG_UNLOCKED_BY_PASSCODE = 82
    LOG_UNLOCKED_BY_BIOMETRICS = 83
    LOG_BIOMETRIC_FAILED = 84
    LOG_MAX_FAILURES_REACHED = 85
    LOG_PASSCODE_SET = 86
    LOG_PASSCODE_CHANGED = 87
    LOG_PASSCODE_DISABLED = 88
    LOG_PASSCODE_ENABLED = 89
    LOG_PASSCODE_REMOVED = 90
    LOG_RESET_CODE_REQUESTED = 91
    LOG_RESET_CODE_DELIVERED = 92
    LOG_RESET_CODE_DELIVERY_FAILED = 93
    LOG_RESET_COMPLETED = 94
    LOG_RESET_CODE_EXPIRED = 95
    LOG_FORGOT_PASSCODE = 96
    LOG_SETTING_CHANGED = 97
    LOG_SESSION_SIGNED_OUT = 98
    LOG_ACCOUNT_DELETED = 99
    LOG_TAMPER_DETECTED = 100
    LOG_TPM_ROLLBACK = 101
    PASSWORD_EMPTY = 110
    PASSWORD_TOO_SHORT = 111
    PASSWORD_TOO_LONG = 112
    PASSWORD_MISMATCH = 113
    SESSION_NOT_FOUND = 114
    SESSION_IS_CURRENT = 115
    CONFIRMATION_MISMATCH = 116
    RESET_REQUEST_WAIT_SECONDS = 117
    RESET_REQUEST_WAIT_MINUTES = 118
    RESET_CODE_NOT_SENT = 119
    RESET_CODE_REPLACED = 120
    PASSCODE_WAS_RESET = 121
    WRONG_RECOVERY_KEY = 122
    BIOMETRIC_TIMEOUT = 123
    ACCOUNT_DELETED = 124
    LOCK_ON = 140
    LOCK_OFF = 141
    LOCK_AT_LAUNCH_ON = 142
    LOCK_AT_LAUNCH_OFF = 143
    BIOMETRIC_UNLOCK_ON = 144
    BIOMETRIC_UNLOCK_OFF = 145
    REQUIRE_BIOMETRIC_ON = 146
    REQUIRE_BIOMETRIC_OFF = 147
    TWO_FACTOR_ON = 148
    TWO_FACTOR_OFF = 149
    PASSCODE_EVERY_LAUNCH_ON = 150
    PASSCODE_EVERY_LAUNCH_OFF = 151
    LOCKOUT_SCHEDULE_SET = 152
    MAX_FAILURE_ACTION_SET = 153
    PASSCODE_LENGTH_SET = 154
    RESET_CODE_LENGTH_SET = 155
    RESET_REQUESTS_PER_DAY_SET = 156
    AUTO_LOCK_IMMEDIATELY = 157
    AUTO_LOCK_SECONDS = 158
    AUTO_LOCK_MINUTES = 159
    AUTO_LOCK_HOURS = 160
    CODE_LIFETIME_SECONDS = 161
    CODE_LIFETIME_MINUTES = 162
    CODE_LIFETIME_HOURS = 163
    REQUEST_INTERVAL_SECONDS = 164
    REQUEST_INTERVAL_MINUTES = 165
    REQUEST_INTERVAL_HOURS = 166
    ACCOUNT_PASSWORD_CHANGED = 167
    CUSTOM_SCHEDULE_SET = 168
    CUSTOM_SCHEDULE_REMOVED = 169
    DEFAULTS_RESTORED = 170
    PAM_PASSCODE_PROMPT = 500
    PAM_WRONG_LENGTH = 501
    PAM_RESET_REQUIRED = 502
    PAM_LOCKED_MINUTES = 503
    PAM_LOCKED = 504
    PAM_CURRENT_PROMPT = 505
    PAM_NEW_PROMPT = 506
    PAM_RETYPE_PROMPT = 507
    PAM_CHANGE_WRONG_LENGTH = 508
    PAM_MISMATCH = 509
    PAM_ONLY_ROOT_SETS = 510
    PAM_TOO_WEAK = 511
    PAM_NOT_CHANGED = 512
    PAM_PASSCODE_OR_FINGER_PROMPT = 513
    PAM_TOUCH_READER = 514
    PAM_FINGER_NO_MATCH = 515


class LoginState(IntEnum):
    """A user's login store as a greeter or a screen locker draws it, without parsing text: what
    passcode_user_lockout() answers, the State property of passcoded's login objects
    (org.libpasscode.Passcode1.Login) and the `state:` field of pam_passcode's
    PAM_PASSCODE_STATE. (passcode_login_state)"""
    OPEN = 0
    LOCKED_OUT = 1
    RESET_REQUIRED = 2
    NO_PASSCODE = 3
    UNAVAILABLE = 4


# Deprecated since 0.7 (the header keeps the old C names too, until the next major version):
Event = AppEvent
SecurityEvent = LogKind


#: C enum name -> (Python enum, prefix of its constants in passcode.h)
HEADER_ENUMS = {
    "passcode_status": (Status, "PASSCODE_"),
    "passcode_cost": (Cost, "PASSCODE_COST_"),
    "passcode_app_event": (AppEvent, "PASSCODE_APP_EVENT_"),
    "passcode_lock_reason": (LockReason, "PASSCODE_LOCK_REASON_"),
    "passcode_biometric_refusal": (BiometricRefusal, "PASSCODE_BIOMETRIC_REFUSAL_"),
    "passcode_biometric_kind": (BiometricKind, "PASSCODE_BIOMETRIC_KIND_"),
    "passcode_log_kind": (LogKind, "PASSCODE_LOG_KIND_"),
    "passcode_flow_kind": (FlowKind, "PASSCODE_FLOW_KIND_"),
    "passcode_flow_step": (FlowStep, "PASSCODE_FLOW_STEP_"),
    "passcode_flow_result": (FlowResult, "PASSCODE_FLOW_RESULT_"),
    "passcode_max_failure_action": (MaxFailureAction, "PASSCODE_MAX_FAILURE_ACTION_"),
    "passcode_lockout_schedule": (Schedule, "PASSCODE_LOCKOUT_SCHEDULE_"),
    "passcode_notice": (Notice, "PASSCODE_NOTICE_"),
    "passcode_logout_reason": (LogoutReason, "PASSCODE_LOGOUT_REASON_"),
    "passcode_lifecycle_event": (LifecycleEvent, "PASSCODE_LIFECYCLE_EVENT_"),
    "passcode_setting": (Setting, "PASSCODE_SETTING_"),
    "passcode_tpm_posture_item": (TpmPostureItem, "PASSCODE_TPM_POSTURE_ITEM_"),
    "passcode_message_topic": (MessageTopic, "PASSCODE_MESSAGE_TOPIC_"),
    "passcode_message": (Message, "PASSCODE_MESSAGE_"),
    "passcode_login_state": (LoginState, "PASSCODE_LOGIN_STATE_"),
}
