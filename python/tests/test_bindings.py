"""Loading: the generated declarations, the version and layout checks
against the library's own table, where the library is found, and that
`import pcsim` needs no numpy."""

import os
import re
import subprocess
import sys

import cffi
import pytest

import pcsim
from pcsim import _lib

from conftest import BUILD, REPO, TWO_UNITS


def test_installed_copy_when_the_suite_says_so():
    if os.environ.get("PCSIM_EXPECT_INSTALLED") == "1":
        assert "site-packages" in pcsim.__file__, pcsim.__file__


def test_version_is_the_makefiles_and_pyprojects():
    make = subprocess.run(["make", "-s", "--no-print-directory", "print-version"], cwd=REPO,
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "MAKEFLAGS": "", "MAKELEVEL": ""})
    assert pcsim.version == make.stdout.strip()
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == pcsim.version
    # The SONAME the package asks the system loader for (_lib._SONAME, written
    # by hand) is the series of this version (0.MINOR before 1.0, else MAJOR)
    # and the one make built: a version bump that misses it fails here.
    major, minor = pcsim.version.split(".")[:2]
    assert _lib._SONAME == "libpcsim.so." + (f"0.{minor}" if major == "0" else major)
    assert (BUILD / _lib._SONAME).exists(), BUILD / _lib._SONAME


def test_layout_table_covers_every_declared_struct():
    n = _lib.check_layout(_lib.ffi, _lib.lib, "lib", _lib._cdef_text)
    tags = set(re.findall(r"\bstruct\s+(pcs_\w+)\s*\{", _lib._cdef_text))
    # Hand-computed from command.h and event.h ("64 bytes", "48 bytes").
    assert _lib.ffi.sizeof("pcs_command") == 64
    assert _lib.ffi.offsetof("pcs_command", "args") == 32
    assert _lib.ffi.sizeof("pcs_event") == 48
    assert len(tags) >= 80
    assert n > len(tags) * 3  # a row per struct and per member


def _ffi_with(cdef_text):
    ffi = cffi.FFI()
    ffi.cdef(cdef_text)
    return ffi, ffi.dlopen(pcsim.library_path)


def test_a_member_of_another_size_is_refused_naming_it():
    text = _lib._cdef_text.replace("uint16_t reserved;", "uint32_t reserved;", 1)
    assert text != _lib._cdef_text
    ffi, lib = _ffi_with(text)
    with pytest.raises(ImportError, match=r"pcs_command\.reserved: offset 8 size 4 .* offset 6 size 2"):
        _lib.check_layout(ffi, lib, "libpcsim.so", text)


def test_a_missing_member_is_refused_naming_it():
    # pcs_event without its subject: every later offset moves, but the
    # message names the member the library has and the declarations lack.
    text = re.sub(r"(typedef struct pcs_event \{[^}]*?)uint32_t subject;", r"\1", _lib._cdef_text)
    assert text != _lib._cdef_text
    ffi, lib = _ffi_with(text)
    with pytest.raises(ImportError, match=r"struct pcs_event: member subject is in libpcsim.so"):
        _lib.check_layout(ffi, lib, "libpcsim.so", text)


def test_another_version_is_refused_naming_both():
    # The library's own version, read from it (not pcsim.version, which is
    # what the check returned): a version bump must not need this test edited.
    have = _lib.ffi.string(_lib.lib.pcs_version()).decode()
    assert re.fullmatch(r"\d+\.\d+\.\d+", have), have
    assert have != "9.9.9"
    want = rf"is pcsim {re.escape(have)}, but .* are for 9\.9\.9"
    with pytest.raises(ImportError, match=want):
        _lib._check_version(_lib.ffi, _lib.lib, "libpcsim.so", "9.9.9")


def _run(code, timeout=None, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("PCSIM_LIBRARY", "PYTHONPATH")}
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                          cwd="/", timeout=timeout)


def test_source_tree_import_finds_the_in_tree_library_without_numpy():
    env = {"PYTHONPATH": str(REPO / "python")}
    if BUILD != REPO / "build":
        env["PCSIM_LIBRARY"] = str(BUILD / "libpcsim.so")
    r = _run("import sys, pcsim; print(pcsim.__file__); print(pcsim.library_path); "
             f"print('numpy' in sys.modules); s = pcsim.Station({str(TWO_UNITS)!r}); s.tick(2); "
             "print('numpy' in sys.modules)", **env)
    assert r.returncode == 0, r.stderr
    file, lib, numpy_at_import, numpy_after_ticks = r.stdout.split()
    assert file == str(REPO / "python" / "pcsim" / "__init__.py")
    assert os.path.realpath(lib) == os.path.realpath(BUILD / "libpcsim.so")
    assert numpy_at_import == "False" and numpy_after_ticks == "False"


def test_pcsim_library_that_does_not_exist_is_named():
    # The bindings load on the first name taken from the package (pcsim.plot
    # imports the package without them), and refuse then.
    r = _run("import pcsim; pcsim.Station", PYTHONPATH=str(REPO / "python"),
             PCSIM_LIBRARY="/nonexistent/libpcsim.so")
    assert r.returncode != 0
    assert "ImportError: pcsim: cannot load libpcsim: tried /nonexistent/libpcsim.so ($PCSIM_LIBRARY)" in r.stderr


def test_finalizers_take_no_cffi_lock():
    """cffi resolves a name on first use under ffi._lock (not reentrant). If
    the garbage collector runs Station.__del__ while that lock is held, the
    close must not need it, or the thread waits on itself forever (seen: a
    pytest run hung in futex_wait from a finalizer). A fresh process, so
    nothing is resolved but what import does: hold the lock as cffi would
    and close everything on the same thread; a hang is a timeout here."""
    code = f"""
import pcsim
from pcsim._lib import ffi
s = pcsim.Station({str(TWO_UNITS)!r})
ch = s.channels(["u1.core.power"])
with ffi._lock:
    ch.close()
    s.close()
    s.scenario.close()
print("closed")
"""
    env = {"PYTHONPATH": str(REPO / "python")}
    if BUILD != REPO / "build":
        env["PCSIM_LIBRARY"] = str(BUILD / "libpcsim.so")
    try:
        r = _run(code, timeout=60, **env)
    except subprocess.TimeoutExpired:
        pytest.fail("closing a station while ffi._lock is held hung (it needs cffi's lock)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "closed"
