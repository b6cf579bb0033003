"""Shared helpers for the tests: call a tool with an explicit namespace, capture its payload."""

import contextlib
import json
import math
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


# NIST certifies its StRD values to 15 significant digits, so 15 is the most an answer can score.
DIGITS_CARRIED = 15


def lre(actual, certified, digits=DIGITS_CARRIED):
    """NIST's log relative error: how many leading significant digits of ``actual`` are right.

    -log10(|actual − certified| / |certified|), or the log absolute error when the certified value
    is 0; an exact match scores the digits carried, and nothing scores below 0.
    """
    if actual == certified:
        return float(digits)
    error = abs(actual - certified) / (abs(certified) if certified != 0 else 1.0)
    return max(0.0, min(float(digits), -math.log10(error)))


def significant_digits(figure):
    """How many significant digits a printed figure carries: 0.02458 → 4, 832212 → 6."""
    text = repr(figure).lstrip("-")
    digits = text.replace(".", "").lstrip("0")
    # An integer's trailing zeros may be rounding (1202370): counted as not significant.
    return len(digits) if "." in text else len(digits.rstrip("0"))


class CertifiedValues:
    """Answers checked against reference values by LRE, in groups (coefficients, std errors ...).

    ``verify`` prints the worst LRE of each group, then requires each group's minimum, so a failure
    shows every group's figure and a pass shows how much room is left.
    """

    def __init__(self, dataset):
        self.dataset = dataset
        self.groups = {}

    def add(self, group, actual, certified, label=None):
        self.groups.setdefault(group, []).append(
            (lre(actual, certified), label or group, actual, certified))

    def verify(self, test, required):
        worst = {group: min(entries, key=lambda e: e[0]) for group, entries in self.groups.items()}
        print("\nLRE %s: %s" % (self.dataset, ", ".join(
            "%s %.2f (need %g)" % (group, entry[0], required[group])
            for group, entry in worst.items())), file=sys.stderr)
        for group, (digits, label, actual, certified) in worst.items():
            test.assertGreaterEqual(digits, required[group], "%s %s: got %r, certified %r: LRE %.2f < %g"
                                    % (self.dataset, label, actual, certified, digits,
                                       required[group]))
        return {group: entry[0] for group, entry in worst.items()}


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
