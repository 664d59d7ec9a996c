"""One PAM transaction under pam_wrapper, for Tests/pam/test_pam.py (run with LD_PRELOAD of
libpam_wrapper.so, PAM_WRAPPER=1 and PAM_WRAPPER_SERVICE_DIR set by the caller):
    pamcase.py SERVICE USER OPERATION EXPECTED [ANSWER...]
OPERATION: authenticate, account, setcred, chauthtok. An ANSWER "@file:PATH" is that file's
text. With PAMCASE_RUID set (and run as root) the
transaction runs with that real uid and effective uid 0, as in a setuid program (su, passwd,
polkit's agent helper) that user runs: set in this process, since an exec would drop
LD_LIBRARY_PATH and the bus address (secure-execution mode). Prints one JSON line: ok (the return code
was EXPECTED), the error text pypamtest gave, the PAM_ERROR_MSG and PAM_TEXT_INFO lines, and the
PAM environment after the operation (pam_getenvlist: "env", PAM_PASSCODE_STATE among it)."""
import json
import locale
import os
import sys

import pypamtest

# As su, sudo and login do: the module's messages follow the locale the environment names
# (test_pam.py sets LC_ALL=C unless a check asks for a language).
locale.setlocale(locale.LC_ALL, "")

OPS = {"authenticate": pypamtest.PAMTEST_AUTHENTICATE, "account": pypamtest.PAMTEST_ACCOUNT,
       "setcred": pypamtest.PAMTEST_SETCRED, "chauthtok": pypamtest.PAMTEST_CHAUTHTOK}
service, user, op, expected = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
# An answer "@file:PATH" is the file's text (an answer longer than a command line may be).
answers = [open(a[6:]).read() if a.startswith("@file:") else a for a in sys.argv[5:]]
if os.environ.get("PAMCASE_RUID"):
    os.setresuid(int(os.environ["PAMCASE_RUID"]), 0, 0)
case = pypamtest.TestCase(OPS[op], expected)
env = pypamtest.TestCase(pypamtest.PAMTEST_GETENVLIST, 0)
try:
    result = pypamtest.run_pamtest(user, service, [case, env], answers)
    print(json.dumps({"ok": True, "errors": list(result.errors), "info": list(result.info), "env": dict(env.pam_env)}))
except pypamtest.PamTestError as e:
    print(json.dumps({"ok": False, "error": str(e)}))
