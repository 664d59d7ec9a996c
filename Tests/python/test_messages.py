"""The messages a person may see: codes the same in every language, the text in the program's.

Each language runs in a process of its own (the locale is the process's): a flow driven from
Python, the lockout's plural, a weak passcode, the security label, a setting change of the log
in words and a failure's message, printed as codes and texts."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

import passcode

DRIVE = r'''
import json, locale, sys
locale.setlocale(locale.LC_ALL, "")
import passcode
from passcode import FlowKind, Message, Setting, message_text, message_of
out = {}
with passcode.Store(sys.argv[1], ops_limit=1, mem_limit=8192, clock=lambda: (1_000_000, 1_700_000_000_000, 5)) as s:
    f = s.flow(FlowKind.CREATE)
    out["create"] = [f.messages[0], f.prompt]
    f.type("123456")                                   # weak: 4 digits in a row
    out["weak"] = [f.messages[1], f.error]
    f.type("386491"); f.type("915372")                 # the confirmation does not match
    out["mismatch"] = [f.messages[1], f.error]
    f.type("386491"); f.type("386491")
    s.set_setting(Setting.TWO_FACTOR_ENABLED, 1)
    out["log"] = [[int(m), n] for m, n in s.events()[0].words] + [s.events()[0].text]
    f = s.flow(FlowKind.UNLOCK)
    for wrong in ("000001", "000002", "000003", "000004", "000005"):  # a repeated guess is not counted again
        f.type(wrong)
    prompt, error, number = f.messages
    out["lockout"] = [prompt, f.prompt, error, number, f.error]
    try:
        s.verify("000006")
    except passcode.LockedOut as e:
        out["locked"] = [int(e.person[0]), e.person[1], e.text]
    out["label"] = [message_of(passcode.BiometricKind.FINGERPRINT), message_text(message_of(passcode.BiometricKind.FINGERPRINT))]
    out["plural"] = [message_text(Message.TRY_AGAIN_IN_MINUTES, 1), message_text(Message.TRY_AGAIN_IN_MINUTES, 5)]
    out["pam"] = message_text(Message.PAM_PASSCODE_PROMPT, 6)
print(json.dumps(out))
'''


def drive(tmp_path, language):
    """The messages of one run with LANGUAGE=language (LANG C.UTF-8: a locale that is not "C")."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k not in ("LANG", "LANGUAGE")}
    env.update(LANG="C.UTF-8", LANGUAGE=language, PYTHONPATH=os.path.join(ROOT, "python"))
    path = str(tmp_path / f"store-{language or 'none'}.db")
    r = subprocess.run([sys.executable, "-c", DRIVE, path], env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


EMBEDDED = pytest.mark.embedded_only("each language runs in a process of its own, on a store opened by its path")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("messages")
    return {lang: drive(tmp, lang) for lang in ("", "de_DE.UTF-8", "fr", "xx_YY")}


def codes(run):
    """Everything but the texts."""
    return {k: [x for x in v if not isinstance(x, str)] if isinstance(v, list) else None for k, v in run.items()}


@EMBEDDED
def test_codes_are_the_same_in_every_language(runs):
    english = codes(runs[""])
    for lang in ("de_DE.UTF-8", "fr", "xx_YY"):
        assert codes(runs[lang]) == english, lang
    e = runs[""]
    assert e["create"][0] == passcode.Message.ENTER_A_PASSCODE
    assert e["weak"][0] == passcode.Message.WEAK_RUN
    assert e["mismatch"][0] == passcode.Message.PASSCODES_DONT_MATCH
    assert e["log"][0] == [passcode.Message.TWO_FACTOR_ON, 0]
    assert e["lockout"][0] == passcode.Message.PASSCODE_LOCKED
    assert e["lockout"][2:4] == [passcode.Message.TRY_AGAIN_IN_SECONDS, 60]
    assert e["locked"][:2] == [passcode.Message.TRY_AGAIN_IN_SECONDS, 60]
    assert e["label"][0] == passcode.Message.LABEL_PASSCODE_FINGERPRINT


@EMBEDDED
def test_english_without_a_catalogue(runs):
    for lang in ("", "xx_YY"):  # no LANGUAGE, and a language without a catalogue
        r = runs[lang]
        assert r["create"][1] == "Enter a passcode"
        assert r["weak"][1] == "Choose a harder passcode: it has 4 digits in a row that repeat or climb or fall evenly."
        assert r["mismatch"][1] == "Passcodes don't match. Try again."
        assert r["log"][-1] == "Two-factor authentication turned on"
        assert r["lockout"][1] == "Passcode locked"
        assert r["lockout"][4] == "Too many attempts. Try again in 60 seconds."
        assert r["locked"][2] == "Too many attempts. Try again in 60 seconds."
        assert r["label"][1] == "Passcode & Fingerprint"
        assert r["plural"] == ["Too many attempts. Try again in 1 minute.", "Too many attempts. Try again in 5 minutes."]
        assert r["pam"] == "Passcode (6 digits):"


@EMBEDDED
def test_german(runs):
    r = runs["de_DE.UTF-8"]
    assert r["create"][1] == "Einen Code eingeben"
    assert r["weak"][1].startswith("Wähle einen schwereren Code:")
    assert r["mismatch"][1] == "Die Codes stimmen nicht überein. Versuche es noch einmal."
    assert r["log"][-1] == "Zwei-Faktor-Authentifizierung eingeschaltet"
    assert r["lockout"][1] == "Code gesperrt"
    assert r["lockout"][4] == "Zu viele Versuche. Versuche es in 60 Sekunden erneut."
    assert r["locked"][2] == "Zu viele Versuche. Versuche es in 60 Sekunden erneut."
    assert r["label"][1] == "Code & Fingerabdruck"
    assert r["plural"] == ["Zu viele Versuche. Versuche es in 1 Minute erneut.",
                           "Zu viele Versuche. Versuche es in 5 Minuten erneut."]
    assert r["pam"] == "Code (6 Ziffern):"


@EMBEDDED
def test_french(runs):
    r = runs["fr"]
    assert r["create"][1] == "Saisir un code"
    assert r["mismatch"][1] == "Les codes ne correspondent pas. Réessayez."
    assert r["lockout"][4] == "Trop de tentatives. Réessayez dans 60 secondes."
    assert r["plural"] == ["Trop de tentatives. Réessayez dans 1 minute.", "Trop de tentatives. Réessayez dans 5 minutes."]
    assert r["label"][1] == "Code et empreinte digitale"


def test_the_c_locale_is_english_whatever_language_says(tmp_path):
    """A program that never calls setlocale (or LC_ALL=C) gets English, as glibc's gettext gives."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k not in ("LANG", "LANGUAGE")}
    env.update(LC_ALL="C", LANGUAGE="de", PYTHONPATH=os.path.join(ROOT, "python"))
    code = "import passcode; print(passcode.message_text(passcode.Message.INCORRECT_PASSCODE))"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "Incorrect passcode"


def test_message_text_of_no_message_is_empty():
    assert passcode.message_text(passcode.Message.NONE) == ""
    assert passcode.message_text(99999) == ""
