"""Shared helpers for the tests: call a tool with an explicit namespace, capture its payload."""

import contextlib
import json
import os
import shutil
import sys
import tempfile
import unittest

import python_session


def has(module):
    """True when ``module`` imports (used to pick a round trip or a missing-package check)."""
    try:
        __import__(module)
        return True
    except Exception:
        return False


def call(tool, ns=None, raw=None, **args):
    """Run ``tool`` through ``python_session.call`` and return the one payload it published."""
    published = []
    ns = {} if ns is None else ns
    result = python_session.call(tool, json.dumps(args) if raw is None else raw, ns,
                                 published.append)
    assert result is None, "call() must return None"
    assert len(published) == 1, "call() must publish exactly one payload, got %d" % len(published)
    payload = published[0]
    # The payload must survive strict JSON, as it will on the wire.
    text = json.dumps(payload, allow_nan=False)
    assert json.loads(text) == payload
    return payload


@contextlib.contextmanager
def hidden_modules(*names):
    """Make ``import name`` fail (as if the package were not installed) inside the block."""
    saved = {}
    for key in list(sys.modules):
        if any(key == n or key.startswith(n + ".") for n in names):
            saved[key] = sys.modules[key]
    for name in names:
        saved.setdefault(name, sys.modules.get(name))
    try:
        for key in saved:
            sys.modules[key] = None
        yield
    finally:
        for key, module in saved.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module


@contextlib.contextmanager
def unimported(*names):
    """Remove modules from ``sys.modules`` (installed, but not imported yet) for the block."""
    saved = {}
    for key in list(sys.modules):
        if any(key == n or key.startswith(n + ".") for n in names):
            saved[key] = sys.modules.pop(key)
    try:
        yield
    finally:
        for key in list(sys.modules):
            if any(key == n or key.startswith(n + ".") for n in names) and key not in saved:
                sys.modules.pop(key, None)
        sys.modules.update(saved)


class ToolTestCase(unittest.TestCase):
    """A TestCase with a temporary folder and assertions on payloads."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="python-session-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def ok(self, tool, ns=None, **args):
        payload = call(tool, ns, **args)
        self.assertTrue(payload["ok"], "%s failed: %s" % (tool, payload))
        self.assertIsInstance(payload["text"], str)
        return payload

    def fails(self, tool, kind, ns=None, contains=(), **args):
        payload = call(tool, ns, **args)
        self.assertFalse(payload["ok"], "%s should have failed: %s" % (tool, payload))
        self.assertEqual(set(payload), {"ok", "error", "kind", "install"})
        self.assertEqual(payload["kind"], kind, payload["error"])
        for part in ([contains] if isinstance(contains, str) else contains):
            self.assertIn(part, payload["error"])
        return payload

    def assertRel(self, actual, expected, rtol, msg=None):
        """|actual − expected| ≤ rtol·|expected| (absolute rtol when expected is 0)."""
        scale = abs(expected) if expected != 0 else 1.0
        error = abs(actual - expected) / scale
        self.assertLessEqual(error, rtol, "%s: got %r, expected %r (relative error %.3g > %.1g)"
                             % (msg or "value", actual, expected, error, rtol))
