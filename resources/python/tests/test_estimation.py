"""ols: against NIST's certified Longley results and against statsmodels itself.

Certified values are checked by NIST's log relative error (LRE), the number of correct leading
digits, and each figure must reach what a numerically stable algorithm guarantees on Longley in
double precision, not what one BLAS happened to give: the last digits of a least-squares answer
depend on the order in which the BLAS kernel adds (OpenBLAS picks its kernel by processor and
by OPENBLAS_CORETYPE). The tests print the LRE reached; `npm run test:numeric` runs them with
OpenBLAS's own kernel choice, with OPENBLAS_CORETYPE=Haswell and with the reference BLAS/LAPACK.

Why the levels: Longley's design has condition number 4.9e9, 4.3e4 once its columns are scaled.
A backward-stable solve (QR, SVD as statsmodels uses) loses about log10 of the scaled condition
number, keeping about 11 of a double's 16 digits; every BLAS tried gives 10.8-11.0 for the
coefficients and 11.9-13.1 for the SSR. Requiring 9 leaves two digits for other kernels, is far
beyond the six digits EViews prints, and still fails an unstable method: solving the normal
equations X'X b = X'y scores 7.4 here, single precision 4.9. Derived figures (R², F, the
likelihood) need what their formula keeps of the SSR's 9 digits; each level says why.
"""

import math
import unittest

import numpy as np
import pandas as pd

from tests.support import CertifiedValues, ToolTestCase, has, hidden_modules, significant_digits


def acorr_breusch_godfrey(res, nlags):
    """statsmodels' test, asked for its plain tuple where it offers a choice (0.15+)."""
    import inspect
    fn = diagnostic.acorr_breusch_godfrey
    if "result_object" in inspect.signature(fn).parameters:
        return fn(res, nlags=nlags, result_object=False)
    return fn(res, nlags=nlags)

if has("statsmodels"):
    import statsmodels.api as sm
    import statsmodels.stats.diagnostic as diagnostic
    from statsmodels.stats.diagnostic import het_breuschpagan, het_white
    from statsmodels.stats.stattools import durbin_watson, jarque_bera

# NIST StRD, Longley (1967): y = employment; x1..x6 = GNP deflator, GNP, unemployed, armed
# forces, population, year. https://www.itl.nist.gov/div898/strd/lls/data/Longley.shtml
LONGLEY = """
60323  83.0 234289 2356 1590 107608 1947
61122  88.5 259426 2325 1456 108632 1948
60171  88.2 258054 3682 1616 109773 1949
61187  89.5 284599 3351 1650 110929 1950
63221  96.2 328975 2099 3099 112075 1951
63639  98.1 346999 1932 3594 113270 1952
64989  99.0 365385 1870 3547 115094 1953
63761 100.0 363112 3578 3350 116219 1954
66019 101.2 397469 2904 3048 117388 1955
67857 104.6 419180 2822 2857 118734 1956
68169 108.4 442769 2936 2798 120445 1957
66513 110.8 444546 4681 2637 121950 1958
68655 112.6 482704 3813 2552 123366 1959
69564 114.2 502601 3931 2514 125368 1960
69331 115.7 518173 4806 2572 127852 1961
70551 116.9 554894 4007 2827 130081 1962
"""
LONGLEY_X = ["x1", "x2", "x3", "x4", "x5", "x6"]
CERTIFIED = {  # (estimate, standard deviation of the estimate)
    "const": (-3482258.63459582, 890420.383607373),
    "x1": (15.0618722713733, 84.9149257747669),
    "x2": (-0.358191792925910e-01, 0.334910077722432e-01),
    "x3": (-2.02022980381683, 0.488399681651699),
    "x4": (-1.03322686717359, 0.214274163161675),
    "x5": (-0.511041056535807e-01, 0.226073200069370),
    "x6": (1829.15146461355, 455.478499142212),
}
CERTIFIED_RESIDUAL_SD = 304.854073561965
CERTIFIED_R2 = 0.995479004577296
CERTIFIED_SSR = 836424.055505915
CERTIFIED_SS_REGRESSION = 184172401.944494
CERTIFIED_F = 330.285339234588
CERTIFIED_DF = (6, 9)
# Stata's robust standard errors for Longley, as statsmodels' own tests record them
# (rounded to 5 decimals: 4 to 8 significant digits).
STATA_HC = {
    "HC0": (51.22035, 0.02458, 0.38324, 0.14625, 0.15821, 428.38438, 832212),
    "HC1": (68.29380, 0.03277, 0.51099, 0.19499, 0.21094, 571.17917, 1109615),
    "HC2": (67.49208, 0.03653, 0.55334, 0.20522, 0.22324, 617.59295, 1202370),
    "HC3": (91.11939, 0.05562, 0.82213, 0.29879, 0.32491, 922.80784, 1799477),
}


def longley():
    rows = [[float(v) for v in line.split()] for line in LONGLEY.strip().splitlines()]
    return pd.DataFrame(rows, columns=["y"] + LONGLEY_X)


def simulated(n=400, seed=5, hetero=False, ar=0.0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.uniform(0, 10, n),
                          "x3": rng.normal(size=n)})
    scale = 0.5 + (np.abs(frame["x1"].to_numpy()) if hetero else 0.0)
    e = rng.standard_t(5, n) * scale
    if ar:
        for i in range(1, n):
            e[i] += ar * e[i - 1]
    frame["y"] = 1.0 + 0.5 * frame["x1"] - 0.25 * frame["x2"] + 2.0 * frame["x3"] + e
    return frame


@unittest.skipUnless(has("statsmodels"), "statsmodels is not installed")
class Longley(ToolTestCase):
    def setUp(self):
        super().setUp()
        self.ns = {"longley": longley()}
        self.payload = self.ok("ols", self.ns, data="longley", y="y", x=LONGLEY_X)
        self.s = self.payload["structured"]

    def test_certified_coefficients_and_standard_errors(self):
        params = {p["name"]: p for p in self.s["params"]}
        self.assertEqual(list(params), ["const"] + LONGLEY_X)
        check = CertifiedValues("Longley")
        for name, (coef, se) in CERTIFIED.items():
            check.add("coefficients", params[name]["coef"], coef, "coefficient " + name)
            check.add("std errors", params[name]["std_err"], se, "std error " + name)
            check.add("t", params[name]["t"], coef / se, "t " + name)
        check.verify(self, {
            "coefficients": 9,
            "std errors": 9,
            "t": 8.5,  # a quotient of two 9-digit values keeps 9 - log10(2) = 8.7 digits
        })

    def test_certified_fit_statistics(self):
        s = self.s
        self.assertEqual((s["df_model"], s["df_resid"]), CERTIFIED_DF)
        self.assertEqual(s["nobs"], 16)
        n = 16
        ss_total = CERTIFIED_SSR + CERTIFIED_SS_REGRESSION
        # log-likelihood from its definition, with the certified SSR
        llf = -n / 2 * (math.log(2 * math.pi) + math.log(CERTIFIED_SSR / n) + 1)
        check = CertifiedValues("Longley")
        check.add("SSR", s["ssr"], CERTIFIED_SSR, "residual sum of squares")
        check.add("residual SD", s["se_regression"], CERTIFIED_RESIDUAL_SD)
        check.add("F", s["f_statistic"], CERTIFIED_F)
        check.add("R-squared", s["r_squared"], CERTIFIED_R2)
        check.add("adjusted R-squared", s["adj_r_squared"], 1 - (1 - CERTIFIED_R2) * 15 / 9)
        check.add("S.D. of y", s["sd_dependent"], math.sqrt(ss_total / 15))
        check.add("likelihood and criteria", s["log_likelihood"], llf, "log-likelihood")
        for key, value in (("aic", -2 * llf + 2 * 7), ("bic", -2 * llf + 7 * math.log(n))):
            check.add("likelihood and criteria", s[key], value, key.upper())
            check.add("likelihood and criteria", s[key + "_per_obs"], value / n, key.upper() + "/n")
        check.verify(self, {
            "SSR": 9,
            "residual SD": 9,  # sqrt(SSR/9) halves the SSR's relative error
            "F": 9,  # (SST - SSR)/6 over SSR/9: the SSR's relative error, times 1 + SSR/SSreg
            # 1 - SSR/SST: the SSR's error scaled by SSR/SST = 0.0045, so 2.3 digits more
            "R-squared": 11,
            "adjusted R-squared": 11,  # the same, scaled by 15/9 · SSR/SST / adj R² = 0.0076
            "S.D. of y": 12,  # no solve at all: the variance of y loses at most 2.5 digits
            # n/2 · log(SSR/n): an absolute error of 8 times the SSR's relative error, on a
            # log-likelihood of -109.6 (AIC 233, BIC 239), so a digit more than the SSR
            "likelihood and criteria": 10,
        })

    def test_full_precision_in_the_payload(self):
        # Every float is a full double, not a rounded display value.
        res = sm.OLS(self.ns["longley"]["y"], sm.add_constant(self.ns["longley"][LONGLEY_X])
                     ).fit()
        self.assertEqual([p["coef"] for p in self.s["params"]], res.params.tolist())
        self.assertEqual([p["std_err"] for p in self.s["params"]], res.bse.tolist())
        self.assertEqual([p["p"] for p in self.s["params"]], res.pvalues.tolist())
        self.assertEqual(self.s["r_squared"], res.rsquared)
        self.assertEqual(self.s["aic"], res.aic)
        self.assertEqual(self.s["bic"], res.bic)

    def test_stata_robust_standard_errors(self):
        for cov, expected in STATA_HC.items():
            s = self.ok("ols", self.ns, data="longley", y="y", x=LONGLEY_X,
                        cov_type=cov)["structured"]
            got = {p["name"]: p["std_err"] for p in s["params"]}
            check = CertifiedValues("Longley %s std errors vs Stata" % cov)
            required = {}
            for name, value in zip(LONGLEY_X + ["const"], expected):
                check.add(name, got[name], value, "%s std error %s" % (cov, name))
                # Stata's figure is rounded to d significant digits, which bounds the agreement
                # at d - 0.7 digits whatever the BLAS: require d - 1 (repr drops a trailing
                # zero, which only lowers the bar).
                required[name] = significant_digits(value) - 1
            check.verify(self, required)

    def test_results_object_stays_in_the_session(self):
        self.assertEqual(self.s["model_name"], "ols_y")
        res = self.ns["ols_y"]
        check = CertifiedValues("Longley, results object")
        check.add("x6 coefficient", float(res.params["x6"]), CERTIFIED["x6"][0])
        check.verify(self, {"x6 coefficient": 9})  # as the coefficients above
        self.assertIn("Coefficient", self.payload["text"])
        self.assertIn("Durbin-Watson", self.payload["text"])
        self.assertIn("EViews", self.payload["text"])


@unittest.skipUnless(has("statsmodels"), "statsmodels is not installed")
class KnownCoefficients(ToolTestCase):
    def test_large_sample_recovers_the_truth(self):
        rng = np.random.default_rng(2024)
        n = 200000
        frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                              "c": rng.uniform(-1, 1, n)})
        truth = {"const": 1.5, "a": -2.0, "b": 0.5, "c": 3.0}
        sigma = 0.1
        frame["y"] = (truth["const"] + truth["a"] * frame["a"] + truth["b"] * frame["b"] +
                      truth["c"] * frame["c"] + rng.normal(scale=sigma, size=n))
        s = self.ok("ols", {"df": frame}, data="df", y="y", x=["a", "b", "c"])["structured"]
        X = np.column_stack([np.ones(n), frame[["a", "b", "c"]].to_numpy()])
        exact = np.linalg.lstsq(X, frame["y"].to_numpy(), rcond=None)[0]
        for p, lstsq in zip(s["params"], exact):
            # within 6 standard errors (~0.0013 for c, ~0.0002 for the rest) of the truth...
            self.assertLess(abs(p["coef"] - truth[p["name"]]), 6 * p["std_err"], p)
            self.assertLess(p["std_err"], 0.0005)
            # ...and equal to a direct least-squares solve to 1e-12
            self.assertRel(p["coef"], lstsq, 1e-12, p["name"])
        self.assertRel(s["se_regression"], sigma, 0.01)
        self.assertEqual(s["nobs"], n)
        self.assertEqual(s["dropped_rows"], 0)

    def test_missing_rows_are_dropped_and_counted(self):
        frame = simulated(200)
        frame.loc[[3, 50, 199], "x2"] = np.nan
        frame.loc[7, "y"] = np.nan
        ns = {"df": frame}
        s = self.ok("ols", ns, data="df", y="y", x=["x1", "x2", "x3"])["structured"]
        self.assertEqual(s["dropped_rows"], 4)
        self.assertEqual(s["nobs"], 196)
        self.assertEqual(s["dropped_index"], ["3", "7", "50", "199"])
        clean = frame.dropna()
        res = sm.OLS(clean["y"], sm.add_constant(clean[["x1", "x2", "x3"]])).fit()
        self.assertEqual([p["coef"] for p in s["params"]], res.params.tolist())
        self.assertTrue(any("inside the sample" in n for n in s["notes"]))

    def test_without_constant(self):
        frame = simulated(100)
        s = self.ok("ols", {"df": frame}, data="df", y="y", x=["x1", "x2"],
                    add_constant=False)["structured"]
        res = sm.OLS(frame["y"], frame[["x1", "x2"]]).fit()
        self.assertEqual([p["name"] for p in s["params"]], ["x1", "x2"])
        self.assertEqual(s["r_squared"], res.rsquared)  # uncentred, as statsmodels has it
        self.assertFalse(s["has_constant"])
        exog = np.column_stack([np.ones(100), frame[["x1", "x2"]].to_numpy()])
        bp = het_breuschpagan(res.resid, exog)
        self.assertRel(s["breusch_pagan"]["lm"], bp[0], 1e-12)

    def test_bool_regressor_and_custom_name(self):
        frame = simulated(100)
        frame["flag"] = frame["x1"] > 0
        ns = {"df": frame}
        s = self.ok("ols", ns, data="df", y="y", x=["flag", "x3"], name="m1")["structured"]
        self.assertEqual(s["model_name"], "m1")
        self.assertIn("m1", ns)
        self.assertTrue(any("bool" in n for n in s["notes"]))


@unittest.skipUnless(has("statsmodels"), "statsmodels is not installed")
class DiagnosticsMatchStatsmodels(ToolTestCase):
    def fit_both(self, frame, x, **args):
        s = self.ok("ols", {"df": frame}, data="df", y="y", x=x, **args)["structured"]
        exog = sm.add_constant(frame[x])
        return s, sm.OLS(frame["y"], exog).fit(), exog.to_numpy()

    def test_every_diagnostic(self):
        for seed, hetero, ar in ((1, False, 0.0), (2, True, 0.6), (3, True, -0.4)):
            frame = simulated(300, seed=seed, hetero=hetero, ar=ar)
            x = ["x1", "x2", "x3"]
            s, res, exog = self.fit_both(frame, x)
            resid = res.resid.to_numpy()
            self.assertRel(s["durbin_watson"], durbin_watson(resid), 1e-13, "DW")
            bg = acorr_breusch_godfrey(res, nlags=2)
            self.assertEqual(s["breusch_godfrey"]["lags"], 2)
            for key, value in zip(("lm", "lm_pvalue", "f", "f_pvalue"), bg):
                self.assertRel(s["breusch_godfrey"][key], float(value), 1e-12, "BG " + key)
            jb = jarque_bera(resid)
            for key, value in zip(("statistic", "pvalue", "skew", "kurtosis"), jb):
                self.assertRel(s["jarque_bera"][key], float(value), 1e-12, "JB " + key)
            white = het_white(resid, exog)
            for key, value in zip(("lm", "lm_pvalue", "f", "f_pvalue"), white):
                self.assertRel(s["white"][key], float(value), 1e-11, "White " + key)
            bp = het_breuschpagan(resid, exog)
            for key, value in zip(("lm", "lm_pvalue", "f", "f_pvalue"), bp):
                self.assertRel(s["breusch_pagan"][key], float(value), 1e-11, "BP " + key)
            if hetero:
                self.assertLess(s["white"]["lm_pvalue"], 0.01)
            if ar > 0.5:
                self.assertLess(s["breusch_godfrey"]["lm_pvalue"], 0.001)
                self.assertLess(s["durbin_watson"], 1.5)

    def test_breusch_godfrey_lags(self):
        frame = simulated(200, ar=0.3)
        s, res, _ = self.fit_both(frame, ["x1", "x2"], bg_lags=4)
        bg = acorr_breusch_godfrey(res, nlags=4)
        self.assertEqual(s["breusch_godfrey"]["lags"], 4)
        self.assertRel(s["breusch_godfrey"]["lm"], float(bg[0]), 1e-12)
        self.assertRel(s["breusch_godfrey"]["f"], float(bg[2]), 1e-12)

    def test_robust_covariances(self):
        frame = simulated(250, hetero=True, ar=0.4)
        x = ["x1", "x2", "x3"]
        exog = sm.add_constant(frame[x])
        for cov in ("HC0", "HC1", "HC2", "HC3"):
            s = self.ok("ols", {"df": frame}, data="df", y="y", x=x,
                        cov_type=cov.lower())["structured"]
            ref_t = sm.OLS(frame["y"], exog).fit(cov_type=cov, use_t=True)
            ref = sm.OLS(frame["y"], exog).fit(cov_type=cov)
            self.assertEqual(s["cov_type"], cov)
            for p, se, se_default, pv, t in zip(s["params"], ref_t.bse, ref.bse, ref_t.pvalues,
                                                ref_t.tvalues):
                self.assertRel(p["std_err"], se, 1e-13, cov)
                self.assertRel(p["std_err"], se_default, 1e-13, cov)
                self.assertRel(p["t"], t, 1e-13, cov)
                self.assertRel(p["p"], pv, 1e-11, cov)
            self.assertRel(s["f_statistic"], float(ref_t.fvalue), 1e-12, cov + " robust F")
            self.assertRel(s["f_pvalue"], float(ref_t.f_pvalue), 1e-10, cov + " robust F p")
            self.assertNotEqual(s["f_statistic"], float(sm.OLS(frame["y"], exog).fit().fvalue))

    def test_hac(self):
        frame = simulated(250, ar=0.5)
        x = ["x1", "x2", "x3"]
        exog = sm.add_constant(frame[x])
        s = self.ok("ols", {"df": frame}, data="df", y="y", x=x, cov_type="HAC")["structured"]
        lags = int(math.floor(4 * (250 / 100) ** (2 / 9)))
        self.assertEqual(s["hac_lags"], lags)
        ref = sm.OLS(frame["y"], exog).fit(cov_type="HAC", cov_kwds={"maxlags": lags},
                                           use_t=True)
        for p, se, pv in zip(s["params"], ref.bse, ref.pvalues):
            self.assertRel(p["std_err"], se, 1e-13, "HAC")
            self.assertRel(p["p"], pv, 1e-11, "HAC p")
        self.assertRel(s["f_statistic"], float(ref.fvalue), 1e-12, "HAC F")
        s = self.ok("ols", {"df": frame}, data="df", y="y", x=x, cov_type="HAC", hac_lags=7,
                    cov_kwds={"use_correction": True})["structured"]
        ref = sm.OLS(frame["y"], exog).fit(cov_type="HAC", cov_kwds={
            "maxlags": 7, "use_correction": True}, use_t=True)
        self.assertEqual(s["hac_lags"], 7)
        for p, se in zip(s["params"], ref.bse):
            self.assertRel(p["std_err"], se, 1e-13, "HAC(7) corrected")

    def test_white_needs_enough_observations(self):
        s = self.ok("ols", {"df": longley()}, data="df", y="y", x=LONGLEY_X)["structured"]
        self.assertIsNone(s["white"])
        self.assertTrue(any("White" in n for n in s["notes"]))


@unittest.skipUnless(has("statsmodels"), "statsmodels is not installed")
class Refusals(ToolTestCase):
    def setUp(self):
        super().setUp()
        frame = simulated(50)
        frame["twice"] = 2 * frame["x1"] - frame["x2"]
        frame["one"] = 1.0
        frame["zero"] = 0.0
        frame["label"] = ["a", "b"] * 25
        frame["numtext"] = [str(v) for v in range(50)]
        frame["when"] = pd.date_range("2020", periods=50)
        frame["inf"] = frame["x1"]
        frame.loc[4, "inf"] = np.inf
        self.ns = {"df": frame, "lst": [1, 2]}

    def test_singular_design(self):
        self.fails("ols", "bad_argument", self.ns, data="df", y="y",
                   x=["x1", "x2", "twice"], contains=("collinear", "'twice'", "'x1'"))
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1", "one"],
                   contains=("'one' is constant",))
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["zero"],
                   contains="all zeros")
        self.assertNotIn("ols_y", self.ns)

    def test_too_few_observations(self):
        small = simulated(4)
        self.fails("ols", "bad_argument", {"df": small}, data="df", y="y",
                   x=["x1", "x2", "x3"], contains="Too few observations")
        frame = simulated(10)
        frame.loc[:7, "x1"] = np.nan
        self.fails("ols", "bad_argument", {"df": frame}, data="df", y="y", x=["x1", "x2"],
                   contains=("Too few", "8 rows were dropped"))

    def test_non_numeric(self):
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["label"],
                   contains=("not numeric", "get_dummies"))
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["numtext"],
                   contains="pd.to_numeric")
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["when"],
                   contains="not numeric")
        self.fails("ols", "bad_argument", self.ns, data="df", y="label", x=["x1"],
                   contains="not numeric")

    def test_other_argument_errors(self):
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["inf"],
                   contains="Infinite")
        self.fails("ols", "not_found", self.ns, data="df", y="y", x=["x11"],
                   contains="did you mean")
        self.fails("ols", "not_found", self.ns, data="nope", y="y", x=["x1"])
        self.fails("ols", "bad_argument", self.ns, data="lst", y="y", x=["x1"],
                   contains="DataFrame")
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1"],
                   cov_type="HC9", contains="cov_type")
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1"], bg_lags=0)
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["y"],
                   contains="also among")
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1", "x1"])
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1"],
                   name="not a name")
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1"],
                   cov_kwds={"maxlags": 2})
        self.fails("ols", "bad_argument", self.ns, data="df", y="y", x=["x1"],
                   cov_type="HAC", hac_lags=2, cov_kwds={"maxlags": 3}, contains="disagree")

    def test_statsmodels_missing(self):
        with hidden_modules("statsmodels"):
            payload = self.fails("ols", "missing_package", self.ns, data="df", y="y",
                                 x=["x1"], contains="statsmodels")
            self.assertTrue(payload["install"].endswith("install statsmodels"))


if __name__ == "__main__":
    unittest.main()
