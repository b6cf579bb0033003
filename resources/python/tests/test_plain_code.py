"""The plain code each tool returns does what the tool did, run without the helpers."""

import contextlib
import io
import os
import unittest

from tests.support import ToolTestCase, call, has


def run_plain(payload, ns):
    """Executes the payload's imports and code in ``ns`` (a namespace without the helpers)."""
    source = "\n".join(payload["imports"]) + "\n" + payload["code"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "<plain code>", "exec"), ns)
    return printed.getvalue()


@unittest.skipUnless(has("pandas") and has("statsmodels"), "pandas and statsmodels are needed")
class PlainCode(ToolTestCase):
    def setUp(self):
        super().setUp()
        import numpy as np
        import pandas as pd
        self.pd = pd
        rng = np.random.default_rng(7)
        n = 60
        x1 = rng.normal(size=n)
        x2 = rng.normal(size=n)
        y = 1.5 + 2.0 * x1 - 0.75 * x2 + rng.normal(scale=0.5, size=n)
        frame = pd.DataFrame({"year": range(1960, 1960 + n), "y": y, "x1": x1, "x2": x2})
        frame.loc[5, "x2"] = float("nan")  # a row the fit leaves out
        self.frame = frame

    def test_load_data_csv_names_the_file_and_the_options_used(self):
        path = self.path("macro data.csv")
        self.frame.to_csv(path, sep=";", index=False)
        ns = {}
        payload = self.ok("load_data", ns, path=path, name="macro")
        self.assertEqual(payload["imports"], ["import pandas as pd"])
        self.assertTrue(payload["code"].startswith("# load_data (Python Session tool): "))
        self.assertIn("macro = pd.read_csv(%r, sep=';', float_precision='round_trip')" % path,
                      payload["code"])
        plain_ns = {}
        run_plain(payload, plain_ns)
        self.pd.testing.assert_frame_equal(plain_ns["macro"], ns["macro"], check_exact=True)
        self.assertIn("python", payload["environment"])
        self.assertIn("pandas", payload["environment"]["packages"])

    @unittest.skipUnless(has("openpyxl"), "openpyxl is not installed")
    def test_load_data_excel_names_the_sheet_it_read(self):
        path = self.path("book.xlsx")
        with self.pd.ExcelWriter(path) as writer:
            self.frame.head(3).to_excel(writer, sheet_name="Notes", index=False)
            self.frame.to_excel(writer, sheet_name="Data", index=False)
        ns = {}
        payload = self.ok("load_data", ns, path=path, name="book", options={"sheet_name": 1})
        self.assertIn("sheet_name='Data'", payload["code"])
        plain_ns = {}
        run_plain(payload, plain_ns)
        self.pd.testing.assert_frame_equal(plain_ns["book"], ns["book"], check_exact=True)

    def test_ols_code_refits_the_same_model_and_prints_the_diagnostics(self):
        for cov_type, extra in (("HC1", {}), ("HAC", {"hac_lags": 3}), ("nonrobust", {})):
            ns = {"df": self.frame}
            payload = self.ok("ols", ns, data="df", y="y", x=["x1", "x2"], cov_type=cov_type,
                              bg_lags=3, name="fit", **extra)
            code = payload["code"]
            self.assertIn("sm.OLS(", code)
            self.assertIn("acorr_breusch_godfrey(fit, nlags=3", code)
            if cov_type != "nonrobust":
                self.assertIn("cov_type=%r" % cov_type, code)
            plain_ns = {"df": self.frame}
            printed = run_plain(payload, plain_ns)
            mine, theirs = plain_ns["fit"], ns["fit"]
            self.assertEqual(list(mine.params.index), list(theirs.params.index))
            self.assertEqual(list(mine.params), list(theirs.params))
            self.assertEqual(list(mine.bse), list(theirs.bse))
            self.assertEqual(mine.nobs, theirs.nobs)
            s = payload["structured"]
            bg = s["breusch_godfrey"]
            self.assertIn("Breusch-Godfrey LM, 3 lags: Obs*R-squared %.6f" % bg["lm"], printed)
            self.assertIn("Durbin-Watson stat: %.6f" % s["durbin_watson"], printed)
            self.assertIn("Jarque-Bera: %.6f" % s["jarque_bera"]["statistic"], printed)
            self.assertIn("White (cross terms): Obs*R-squared %.6f" % s["white"]["lm"], printed)
            self.assertIn("Breusch-Pagan (Koenker): Obs*R-squared %.6f" % s["breusch_pagan"]["lm"],
                          printed)
            self.assertNotIn("_data", plain_ns, "the code leaves no helper names behind")

    def test_ols_without_a_constant(self):
        ns = {"df": self.frame}
        payload = self.ok("ols", ns, data="df", y="y", x=["x1"], add_constant=False)
        self.assertNotIn("add_constant(_data", payload["code"])
        plain_ns = {"df": self.frame}
        printed = run_plain(payload, plain_ns)
        self.assertEqual(list(plain_ns["ols_y"].params), list(ns["ols_y"].params))
        self.assertIn("Breusch-Pagan (Koenker): Obs*R-squared %.6f"
                      % payload["structured"]["breusch_pagan"]["lm"], printed)

    def test_save_data_code_writes_the_same_file(self):
        for ext in ("csv", "tsv", "dta"):
            path = self.path("out", "tool", "data." + ext)
            ns = {"df": self.frame.set_index("year")}
            payload = self.ok("save_data", ns, name="df", path=path)
            self.assertIn("os.makedirs(", payload["code"])
            self.assertIn(".reset_index()", payload["code"], "the index is written as a column")
            again = self.path("out", "plain", "data." + ext)
            plain = dict(payload, code=payload["code"].replace(path, again)
                         .replace(os.path.dirname(path), os.path.dirname(again)))
            run_plain(plain, {"df": ns["df"]})
            if ext == "dta":
                self.pd.testing.assert_frame_equal(self.pd.read_stata(again),
                                                   self.pd.read_stata(path))
            else:
                with open(path, "rb") as a, open(again, "rb") as b:
                    self.assertEqual(a.read(), b.read())

    def test_reset_is_the_magic_it_stands_for(self):
        payload = self.ok("reset", {"a": 1})
        self.assertEqual(payload["code"].splitlines()[1], "%reset -f")
        self.assertEqual(payload["code_notes"], {"tool": "reset_namespace", "clears_namespace": True})

    def test_tools_that_only_look_return_no_code(self):
        ns = {"df": self.frame}
        for tool, args in (("list_names", {}), ("describe", {"name": "df"}),
                           ("value", {"expression": "1 + 1"})):
            payload = call(tool, ns, **args)
            self.assertTrue(payload["ok"])
            self.assertNotIn("code", payload)


@unittest.skipUnless(has("matplotlib"), "matplotlib is not installed")
class PlainFigureCode(ToolTestCase):
    def setUp(self):
        super().setUp()
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt = plt
        plt.close("all")
        self.addCleanup(plt.close, "all")

    def test_a_figure_in_a_variable_is_saved_through_it(self):
        fig, ax = self.plt.subplots()
        ax.plot([1, 2, 3])
        other, _ = self.plt.subplots()
        path = self.path("figs", "one.png")
        payload = self.ok("save_figure", {"fig": fig, "other": other, "ax": ax}, path=path,
                          figure="ax")
        self.assertIn("ax.figure.savefig(%r, format='png', bbox_inches='tight')" % path,
                      payload["code"])
        self.assertEqual(payload["code_notes"], {"tool": "save_figure"})

    def remember(self, fig):
        """Close ``fig`` and keep it, as the kernel does for the figure a cell showed."""
        import sys
        import types
        memory = sys.modules.setdefault("_python_session_figures",
                                        types.ModuleType("_python_session_figures"))
        saved = getattr(memory, "last", None)
        self.addCleanup(setattr, memory, "last", saved)
        self.plt.close(fig)
        memory.last = fig

    def test_a_shown_figure_held_as_an_axes_array_is_reached_through_it(self):
        fig, axes = self.plt.subplots(2)
        self.remember(fig)
        path = self.path("grid.png")
        payload = self.ok("save_figure", {"axes": axes}, path=path)
        self.assertIn("axes.flat[0].figure.savefig(%r" % path, payload["code"])
        self.assertEqual(payload["code_notes"], {"tool": "save_figure"})
        again = path + ".2.png"
        run_plain(dict(payload, code=payload["code"].replace(path, again)), {"axes": axes})
        self.assertTrue(os.path.getsize(again) > 100)

    def test_an_open_figure_without_a_variable_is_the_current_one(self):
        self.plt.plot([1, 2, 3])
        path = self.path("cur.svg")
        payload = self.ok("save_figure", {}, path=path)
        self.assertIn("plt.gcf().savefig(%r, format='svg', bbox_inches='tight')" % path,
                      payload["code"])
        self.assertIn("import matplotlib.pyplot as plt", payload["imports"])
        self.assertEqual(payload["code_notes"], {"tool": "save_figure"})
        printed = run_plain(dict(payload, code=payload["code"].replace(path, path + ".2.svg")), {})
        self.assertEqual(printed, "")
        self.assertTrue(os.path.getsize(path + ".2.svg") > 100)

    def test_a_closed_figure_nobody_holds_is_saved_with_the_cell_that_drew_it(self):
        fig = self.plt.figure()
        fig.gca().plot([3, 1, 2])
        self.remember(fig)
        payload = self.ok("save_figure", {}, path=self.path("late.png"))
        self.assertIn("plt.gcf().savefig(", payload["code"])
        self.assertEqual(payload["code_notes"], {"tool": "save_figure", "attach": "figure"})

if __name__ == "__main__":
    unittest.main()
