"""The Python quick start in service mode, run inside a sandbox by Tests/sandbox/test_sandbox.py:
one command a line on standard input (open APP_ID | set CODE | verify CODE | state | close), and
one line of what the caller got for each: "<command>: <status number> <status name> | <message>"."""
import sys

import passcode

store = None


def say(what, status, name, message=""):
    print(f"{what}: {status} {name} | {message}", flush=True)


for line in sys.stdin:
    command, _, arg = line.strip().partition(" ")
    try:
        if command == "open":
            if store is not None:
                store.close()
                store = None
            store = passcode.Store(arg, service=arg)
            say("open", 0, "OK")
        elif command == "set":
            store.set_passcode(arg)
            say("set", 0, "OK")
        elif command == "verify":
            store.verify(arg)
            say("verify", 0, "OK")
        elif command == "state":
            print(f"state: 0 set={int(store.is_set)} failures={store.failed_attempts}", flush=True)
        elif command == "close":
            if store is not None:
                store.close()
                store = None
            say("close", 0, "OK")
        else:
            say(command, -1, "unknown command")
    except passcode.PasscodeError as e:
        say(command, int(e.status), type(e).__name__, e.message)
    except AttributeError:  # no store open
        say(command, -1, "no store open")
