"""The binding's version: the VERSION file shipped beside this package (in a source tree, a link
to the top-level VERSION, the one place the version is written). `passcode.version()` is the
loaded library's."""
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION"), encoding="ascii") as _file:
    __version__ = _file.read().strip()
