#!/usr/bin/python3
"""The C API in service mode for reset codes mailed by passcoded, through ctypes (run as a test
user by test_service.py's mail test). Usage: mail_capi.py LIBRARY APP_ID PASSCODE ADDRESS.
After passcode_reset_recipient_set it prints "recipient set" and reads the confirmation code
(the test takes it from the mail) on stdin. Then it prints one JSON line: each call's status and
what it gave back (never a reset code: the host gets none)."""
import ctypes
import json
import sys

lib = ctypes.CDLL(sys.argv[1])
app, passcode, address = (x.encode() for x in sys.argv[2:5])
P = ctypes.c_void_p
lib.passcode_options_new.argtypes = [ctypes.POINTER(P)]
lib.passcode_options_set_service.argtypes = [P, ctypes.c_char_p]
lib.passcode_open.argtypes = [ctypes.c_char_p, P, ctypes.POINTER(P)]
lib.passcode_set.argtypes = [P, ctypes.c_char_p, ctypes.c_size_t]
lib.passcode_reset_recipient_set.argtypes = [P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
lib.passcode_reset_recipient_confirm.argtypes = [P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
lib.passcode_reset_recipient.argtypes = [P, ctypes.c_char_p, ctypes.c_size_t]
lib.passcode_reset_request.argtypes = [P]
lib.passcode_reset_pending.argtypes = [P, ctypes.POINTER(ctypes.c_int32)]
lib.passcode_errmsg.argtypes = [P]
lib.passcode_errmsg.restype = ctypes.c_char_p
o, s = P(), P()
out = {"options": lib.passcode_options_new(ctypes.byref(o))}
lib.passcode_options_set_service(o, app)
out["open"] = lib.passcode_open(b"ignored", o, ctypes.byref(s))
out["set"] = lib.passcode_set(s, passcode, len(passcode))
out["recipient_set_wrong"] = lib.passcode_reset_recipient_set(s, address, b"111111", 6)
out["recipient_set"] = lib.passcode_reset_recipient_set(s, address, passcode, len(passcode))
print("recipient set", flush=True)
code = sys.stdin.readline().strip().encode()
unconfirmed = ctypes.create_string_buffer(256)
lib.passcode_reset_recipient(s, unconfirmed, 256)
out["recipient_unconfirmed"] = unconfirmed.value.decode()
wrong = b"0" * 8 if code != b"0" * 8 else b"1" * 8
out["confirm_wrong"] = lib.passcode_reset_recipient_confirm(s, wrong, len(wrong), passcode, len(passcode))
out["confirm"] = lib.passcode_reset_recipient_confirm(s, code, len(code), passcode, len(passcode))
small = ctypes.create_string_buffer(4)
out["recipient_small"] = lib.passcode_reset_recipient(s, small, 4)
buf = ctypes.create_string_buffer(256)
out["recipient"] = lib.passcode_reset_recipient(s, buf, 256)
out["masked"] = buf.value.decode()
out["request"] = lib.passcode_reset_request(s)
out["request_message"] = lib.passcode_errmsg(s).decode() if out["request"] else ""
pending = ctypes.c_int32(-1)
lib.passcode_reset_pending(s, ctypes.byref(pending))
out["pending"] = pending.value
print(json.dumps(out), flush=True)
