"""variables: the panel's Variables view (every name, bounded in time, never changing anything)."""

import contextlib
import io
import signal
import sys
import time
import types
import unittest

import numpy as np
import pandas as pd

from python_session import workspace
from python_session.time_limits import TimeLimits, TimedOut
from tests.support import ToolTestCase, call


class Raises:
    def __repr__(self):
        raise RuntimeError("no repr for you")


class Hangs:
    def __repr__(self):
        while True:
            pass


class HangsSwallowing:
    """A hang that catches Exception: the limit must still end it."""

    def __repr__(self):
        while True:
            try:
                time.sleep(0.01)
            except Exception:
                pass


class Prints:
    def __getattr__(self, name):
        print("looked up", name)
        sys.stderr.write("and on stderr\n")
        raise AttributeError(name)

    def __repr__(self):
        return "<Prints>"


def sample_namespace():
    return {
        "df": pd.DataFrame({"price": [1.5, 2.5], "<b>name</b>": ["a", "b"]}),
        "s": pd.Series([1, 2, 3], name="s"),
        "arr": np.zeros((3, 4)),
        "cube": np.zeros((2, 2, 2)),
        "items": [1, 2, 3],
        "pair": (1, "x"),
        "table": {"a": 1},
        "text": "hello",
        "n": 42,
        "np": np,
        "helper": len,
        "fn": lambda x: x,
        "Klass": Raises,
        "obj": object(),
        "_private": 1,
    }


def rows_by_name(payload):
    return {row["name"]: row for row in payload["structured"]["names"]}


class Variables(ToolTestCase):
    def test_each_row_has_the_contract_fields(self):
        ns = sample_namespace()
        payload = self.ok("variables", ns)
        rows = rows_by_name(payload)
        self.assertNotIn("_private", rows)
        self.assertEqual(payload["structured"]["count"], len(rows))
        self.assertEqual([r["name"] for r in payload["structured"]["names"]],
                         sorted(rows, key=str.lower))
        fields = {"name", "type", "kind", "shape", "length", "dtypes", "size_bytes", "preview",
                  "viewable", "error"}
        for row in rows.values():
            self.assertLessEqual(fields, set(row))
            self.assertIsNone(row["error"], row)
            self.assertLessEqual(len(row["preview"]), 120)
            self.assertNotIn("\n", row["preview"])
        df = rows["df"]
        self.assertEqual((df["type"], df["kind"], df["shape"], df["length"]),
                         ("pandas.DataFrame", "data", [2, 2], None))
        self.assertEqual(df["dtypes"], "1 float64, 1 %s" % ns["df"].dtypes.iloc[1])
        self.assertIn("<b>name</b>", df["preview"])
        self.assertGreater(df["size_bytes"], 0)
        self.assertEqual((rows["s"]["shape"], rows["s"]["dtypes"]), ([3], "int64"))
        self.assertEqual((rows["arr"]["shape"], rows["arr"]["dtypes"]), ([3, 4], "float64"))
        self.assertEqual((rows["items"]["length"], rows["items"]["shape"]), (3, None))
        self.assertEqual(rows["text"]["preview"], "'hello'")
        self.assertEqual(rows["n"]["preview"], "42")
        kinds = {name: row["kind"] for name, row in rows.items()}
        self.assertEqual(kinds["np"], "module")
        self.assertEqual(kinds["helper"], "function")
        self.assertEqual(kinds["fn"], "function")
        self.assertEqual(kinds["Klass"], "class")
        self.assertEqual(kinds["obj"], "other")
        self.assertEqual(kinds["table"], "data")
        viewable = sorted(name for name, row in rows.items() if row["viewable"])
        self.assertEqual(viewable, ["arr", "df", "items", "pair", "s", "table"])
        self.assertIn("names", payload["text"])

    def test_a_repr_that_raises_gives_a_row_with_the_error(self):
        rows = rows_by_name(self.ok("variables", {"bad": Raises(), "good": 1}))
        self.assertEqual(rows["bad"]["type"], "%s.Raises" % Raises.__module__)
        self.assertIn("RuntimeError: no repr for you", rows["bad"]["error"])
        self.assertIsNone(rows["good"]["error"])

    def test_a_repr_that_hangs_is_cut_short_and_the_row_says_so(self):
        started = time.monotonic()
        payload = self.ok("variables", {"stuck": Hangs(), "stubborn": HangsSwallowing(), "ok": 1})
        elapsed = time.monotonic() - started
        rows = rows_by_name(payload)
        self.assertIn("timed out", rows["stuck"]["error"])
        self.assertIn("timed out", rows["stubborn"]["error"])
        self.assertIsNone(rows["ok"]["error"])
        # Two names at most PER_NAME_S each (plus the timer's tick): not a hang.
        self.assertLess(elapsed, 2 * workspace.PER_NAME_S + 2.0)

    def test_the_overall_budget_stops_a_listing_of_many_slow_names(self):
        saved = workspace.PER_NAME_S, workspace.OVERALL_S
        workspace.PER_NAME_S, workspace.OVERALL_S = 0.05, 0.2
        try:
            ns = {"slow%02d" % i: Hangs() for i in range(20)}
            ns["zz_last"] = 5
            payload = self.ok("variables", ns)
        finally:
            workspace.PER_NAME_S, workspace.OVERALL_S = saved
        rows = payload["structured"]["names"]
        self.assertEqual(len(rows), 21)
        skipped = [r for r in rows if r["error"] and r["error"].startswith("not inspected")]
        self.assertGreater(len(skipped), 10)
        self.assertTrue(all(r["type"] for r in rows))

    def test_printing_lookups_do_not_leak_or_break_the_result(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            payload = self.ok("variables", {"loud": Prints()})
        self.assertEqual((out.getvalue(), err.getvalue()), ("", ""))
        row = rows_by_name(payload)["loud"]
        self.assertEqual((row["preview"], row["error"], row["kind"]), ("<Prints>", None, "other"))

    def test_it_changes_nothing_in_the_namespace(self):
        ns = sample_namespace()
        ns["loud"] = Prints()
        before = {k: id(v) for k, v in ns.items()}
        self.ok("variables", ns)
        self.assertEqual({k: id(v) for k, v in ns.items()}, before)

    def test_five_thousand_names(self):
        ns = {"v%04d" % i: (i if i % 3 else [i] * 3) for i in range(5000)}
        payload = self.ok("variables", ns)
        self.assertEqual(payload["structured"]["count"], 5000)
        self.assertEqual(len(payload["structured"]["names"]), 5000)
        self.assertFalse(any(r["error"] for r in payload["structured"]["names"]))
        self.assertFalse(payload["structured"]["truncated"])

    def test_plain_values_take_a_shortcut_to_the_same_row(self):
        with TimeLimits(5.0) as limits:
            for value in (0, -7, 2.5, float("nan"), True, None, "", "text", "é" * 120):
                self.assertEqual(workspace._row("v", value, limits),
                                 workspace._inspected_row("v", value, limits), repr(value))

    def test_big_values_are_previewed_without_being_printed_whole(self):
        ns = {"blob": b"x" * 10_000_000, "big": list(range(1_000_000)),
              "huge_int": 10 ** 5000, "wide": np.arange(10_000_000)[::3]}
        rows = rows_by_name(self.ok("variables", ns))
        for row in rows.values():
            self.assertLessEqual(len(row["preview"]), 120)
        self.assertEqual(rows["big"]["length"], 1_000_000)
        self.assertTrue(rows["wide"]["preview"].startswith("[0, 3, 6"))


@unittest.skipUnless(hasattr(signal, "setitimer"), "needs signal.setitimer")
class Limits(unittest.TestCase):
    def test_a_timer_the_user_had_set_is_put_back(self):
        fired = []
        previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
        try:
            signal.setitimer(signal.ITIMER_REAL, 30.0)
            call("variables", {"x": 1})
            left, _ = signal.getitimer(signal.ITIMER_REAL)
            self.assertGreater(left, 25.0)
            self.assertIsNot(signal.getsignal(signal.SIGALRM), signal.SIG_DFL)
            self.assertEqual(fired, [])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def test_pieces_nest_and_an_inner_timeout_leaves_the_outer_running(self):
        with TimeLimits(5.0) as limits:
            with limits.limit(1.0):
                with self.assertRaises(TimedOut):
                    with limits.limit(0.05):
                        while True:
                            pass
                self.assertFalse(limits.expired())
            with self.assertRaises(TimedOut):
                with limits.limit(0.05):
                    time.sleep(5)
        self.assertEqual(signal.getsignal(signal.SIGALRM), signal.SIG_DFL)


if __name__ == "__main__":
    unittest.main()
