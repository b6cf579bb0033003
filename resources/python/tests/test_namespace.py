"""The call protocol, list_names, describe and reset."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import pandas as pd

import python_session
from tests.support import ToolTestCase, call, has

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)


def sample_frame(rows=50):
    rng = np.random.default_rng(3)
    return pd.DataFrame({
        "price": rng.normal(10, 2, rows),
        "qty": rng.integers(0, 100, rows),
        "region": rng.choice(["north", "south"], rows),
        "when": pd.date_range("2020-01-01", periods=rows, freq="D"),
    })


class CallProtocol(ToolTestCase):
    def test_helpers_import_with_the_standard_library_only(self):
        code = ("import sys; sys.path.insert(0, %r); import python_session; "
                "heavy = [m for m in sys.modules if m.split('.')[0] in "
                "('pandas', 'numpy', 'statsmodels', 'matplotlib', 'IPython', 'scipy')]; "
                "print(heavy)" % PACKAGE_ROOT)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        self.assertEqual(out.stdout.strip(), "[]")

    def test_without_ipython_the_payload_is_printed(self):
        code = ("import sys; sys.path.insert(0, %r); import python_session; "
                "python_session.call('value', r'''{\"expression\": \"40 + 2\"}''')"
                % PACKAGE_ROOT)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        payload = json.loads(out.stdout)
        self.assertEqual(payload["structured"]["value"], 42)

    def test_arguments_are_checked(self):
        self.fails("no_such_tool", "bad_argument", {}, contains="Unknown tool")
        self.fails("value", "bad_argument", {}, contains="needs the argument: expression")
        self.fails("value", "bad_argument", {}, expresion="1",
                   contains="did you mean 'expression'")
        payload = call("value", {}, raw="{not json")
        self.assertEqual(payload["kind"], "bad_argument")
        payload = call("value", {}, raw="[1, 2]")
        self.assertEqual(payload["kind"], "bad_argument")
        # null means "use the default"
        self.assertEqual(call("value", {}, raw='{"expression": "1", "max_items": null}')
                         ["structured"]["value"], 1)

    def test_aliases(self):
        self.assertTrue(call("get_value", {"a": 1}, expression="a")["ok"])
        self.assertTrue(call("describe_object", {"a": 1}, name="a")["ok"])
        self.assertTrue(call("reset_namespace", {"a": 1})["ok"])

    def test_never_raises(self):
        class Evil:
            def __repr__(self):
                raise RuntimeError("no repr")

            def __len__(self):
                raise RuntimeError("no len")

        ns = {"evil": Evil()}
        for tool, args in (("value", {"expression": "evil"}), ("describe", {"name": "evil"}),
                           ("list_names", {})):
            payload = call(tool, ns, **args)
            self.assertIn("ok", payload)
        payload = call("value", {}, expression="exit(3)")
        self.assertFalse(payload["ok"])
        self.assertIn("exit", payload["error"])

    def test_warnings_come_back_in_the_result(self):
        payload = self.ok("value", {"np": np}, expression="np.log(np.array([-1.0]))")
        self.assertIn("RuntimeWarning", payload["text"])

    def test_run_returns_the_payload(self):
        payload = python_session.run("value", {"expression": "1 + 1"}, {})
        self.assertEqual(payload["structured"]["value"], 2)


class ListNames(ToolTestCase):
    def test_lists_user_variables(self):
        ns = {"df": sample_frame(), "n": 3, "_private": 1, "np": np, "pd": pd,
              "In": [], "Out": {}, "get_ipython": len, "s": pd.Series([1.5, 2.5]),
              "arr": np.zeros((3, 4)), "items": [1, 2, 3], "f": sample_frame}
        payload = self.ok("list_names", ns)
        s = payload["structured"]
        names = [v["name"] for v in s["variables"]]
        self.assertEqual(names, ["arr", "df", "f", "items", "n", "s"])
        self.assertEqual(s["count"], 6)
        self.assertEqual(s["modules"], [{"name": "np", "module": "numpy"},
                                        {"name": "pd", "module": "pandas"}])
        df = s["variables"][1]
        self.assertEqual(df["type"], "pandas.DataFrame")
        self.assertEqual(df["shape"], [50, 4])
        self.assertIn("float64", df["dtypes"])
        self.assertIn(str(ns["df"]["region"].dtype), df["dtypes"])
        self.assertGreater(df["memory_bytes"], 50 * 8 * 3)
        self.assertIn("price", df["preview"])
        self.assertEqual(s["variables"][0]["shape"], [3, 4])
        self.assertEqual(s["variables"][3]["len"], 3)
        self.assertIn("df", payload["text"])
        self.assertIn("Modules: np (numpy), pd (pandas)", payload["text"])
        self.assertNotIn("_private", payload["text"])

    def test_empty(self):
        self.assertEqual(self.ok("list_names", {})["text"], "No user variables.")


class Describe(ToolTestCase):
    def test_dataframe(self):
        frame = sample_frame(200)
        frame.loc[3, "price"] = np.nan
        frame.loc[[5, 6], "region"] = None
        payload = self.ok("describe", {"df": frame}, name="df")
        s = payload["structured"]
        self.assertEqual(s["shape"], [200, 4])
        self.assertEqual(s["missing_total"], 3)
        cols = {c["name"]: c for c in s["columns"]}
        self.assertEqual(cols["price"]["missing"], 1)
        self.assertEqual(cols["region"]["missing"], 2)
        self.assertTrue(cols["when"]["dtype"].startswith("datetime64["))
        self.assertAlmostEqual(s["numeric_summary"]["price"]["mean"],
                               frame["price"].mean(), places=12)
        self.assertEqual(len(s["head"]["data"]), 5)
        self.assertEqual(len(s["tail"]["data"]), 5)
        self.assertEqual(s["tail"]["index"], [195, 196, 197, 198, 199])
        self.assertIn("Head:", payload["text"])
        self.assertIn("Tail:", payload["text"])

    def test_wide_and_long_frames_never_flood(self):
        wide = pd.DataFrame(np.zeros((100000, 400)))
        payload = self.ok("describe", {"wide": wide}, name="wide")
        self.assertLess(len(payload["text"]), 20000)
        self.assertLess(len(json.dumps(payload["structured"])), 200000)
        self.assertEqual(len(payload["structured"]["head"]["columns"]), 30)
        huge_text = pd.DataFrame({"t": ["x" * 10000] * 10})
        payload = self.ok("describe", {"t": huge_text}, name="t")
        self.assertLess(len(payload["text"]), 20000)

    def test_series_array_callable_module_and_others(self):
        ns = {"s": pd.Series([1.0, 2.0, np.nan], name="s"), "a": np.arange(12.0).reshape(3, 4),
              "f": sample_frame, "np": np, "d": {"a": 1, "b": [1, 2]}, "text": "hello\nworld",
              "obj": object(), "cat": pd.Series(["a", "b", "a"])}
        s = self.ok("describe", ns, name="s")["structured"]
        self.assertEqual(s["missing"], 1)
        self.assertEqual(s["summary"]["mean"], 1.5)
        a = self.ok("describe", ns, name="a")["structured"]
        self.assertEqual(a["shape"], [3, 4])
        self.assertEqual(a["max"], 11.0)
        f = self.ok("describe", ns, name="f")["structured"]
        self.assertEqual(f["signature"], "(rows=50)")
        m = self.ok("describe", ns, name="np")["structured"]
        self.assertEqual(m["module"], "numpy")
        d = self.ok("describe", ns, name="d")["structured"]
        self.assertEqual(d["length"], 2)
        t = self.ok("describe", ns, name="text")["structured"]
        self.assertEqual(t["lines"], 2)
        c = self.ok("describe", ns, name="cat")["structured"]
        self.assertEqual(c["most_common"][0], ["a", 2])
        self.ok("describe", ns, name="obj")
        self.ok("describe", ns, name="len")  # a builtin
        expr = self.ok("describe", ns, name="s.iloc[:2]")["structured"]
        self.assertEqual(expr["length"], 2)

    @unittest.skipUnless(has("statsmodels"), "statsmodels is not installed")
    def test_statsmodels_results_show_their_summary(self):
        rng = np.random.default_rng(0)
        frame = pd.DataFrame({"x": rng.normal(size=50)})
        frame["y"] = 1 + 2 * frame["x"] + rng.normal(size=50)
        ns = {"df": frame}
        self.ok("ols", ns, data="df", y="y", x=["x"])
        payload = self.ok("describe", ns, name="ols_y")
        self.assertIn("OLS Regression Results", payload["text"])
        self.assertEqual(payload["structured"]["nobs"], 50.0)

    def test_not_found(self):
        self.fails("describe", "not_found", {"data_frame": 1}, name="dataframe",
                   contains="Did you mean data_frame")


class Reset(ToolTestCase):
    def test_reset_plain_namespace(self):
        ns = {"a": 1, "b": 2, "_c": 3, "__name__": "__main__", "np": np}
        payload = self.ok("reset", ns)
        self.assertEqual(payload["structured"]["removed"], 3)
        self.assertEqual(ns, {"__name__": "__main__"})
        self.assertIn("python_session", sys.modules)


@unittest.skipUnless(has("IPython"), "IPython is not installed")
class InsideIPython(unittest.TestCase):
    """The way the daemon calls the helpers: a cell run with store_history=False."""

    @classmethod
    def setUpClass(cls):
        cls.ipdir = tempfile.mkdtemp(prefix="python-session-ipython-")
        os.environ["IPYTHONDIR"] = cls.ipdir
        from traitlets.config import Config
        from IPython.core.interactiveshell import InteractiveShell
        config = Config()
        config.HistoryManager.enabled = False
        cls.shell = InteractiveShell.instance(config=config)
        cls.published = []
        cls.shell.display_pub.publish = (
            lambda data, metadata=None, **kw: cls.published.append(data))

    @classmethod
    def tearDownClass(cls):
        from IPython.core.interactiveshell import InteractiveShell
        InteractiveShell.clear_instance()
        import shutil
        shutil.rmtree(cls.ipdir, True)
        os.environ.pop("IPYTHONDIR", None)

    def run_tool(self, tool, args):
        self.published.clear()
        code = ("__import__('python_session').call(%r, r'''%s''')" % (tool, json.dumps(args)))
        result = self.shell.run_cell(code, store_history=False)
        self.assertIsNone(result.error_in_exec)
        self.assertIsNone(result.result)  # nothing shown as Out[]
        self.assertEqual(len(self.published), 1)
        data = self.published[0]
        self.assertEqual(list(data), [python_session.MIME])
        return data[python_session.MIME]

    def test_value_list_names_and_reset(self):
        self.shell.run_cell("import numpy as np\nx = np.arange(3)\ny = 'hi'", store_history=False)
        before = set(self.shell.user_ns)
        payload = self.run_tool("value", {"expression": "x * 2"})
        self.assertEqual(payload["structured"]["value"], [0, 2, 4])
        self.assertEqual(set(self.shell.user_ns), before)  # nothing left behind
        names = self.run_tool("list_names", {})["structured"]
        self.assertEqual([v["name"] for v in names["variables"]], ["x", "y"])
        self.assertEqual(names["modules"], [{"name": "np", "module": "numpy"}])
        payload = self.run_tool("reset", {})
        self.assertEqual(payload["structured"]["removed"], 3)
        self.assertNotIn("x", self.shell.user_ns)
        self.assertIn("get_ipython", self.shell.user_ns)
        payload = self.run_tool("value", {"expression": "1 + 1"})  # helpers still loaded
        self.assertEqual(payload["structured"]["value"], 2)

    def test_errors_do_not_raise_into_the_cell(self):
        payload = self.run_tool("value", {"expression": "1/0"})
        self.assertEqual(payload["kind"], "python_error")


if __name__ == "__main__":
    unittest.main()
