"""``ols``: ordinary least squares with statsmodels, and the usual diagnostics.

``ols(data, y, x, add_constant=True, cov_type="nonrobust", bg_lags=None, hac_lags=None,
cov_kwds=None, name=None)``

* ``data`` names a DataFrame in the session; ``y`` is a column, ``x`` a list of columns
  (a single string is one column). Bool columns are used as 0/1. Rows with a missing value in
  ``y`` or any ``x`` are dropped and counted (``dropped_rows``); infinite values, non-numeric
  columns, perfect collinearity (checked by the rank of the column-scaled design) and too few
  observations are refused with a message saying which columns are at fault.
* The model is ``statsmodels.regression.linear_model.OLS(y, X).fit()`` (the pinv method,
  statsmodels' default), with ``const`` as the first regressor when ``add_constant`` is true.
  Every number in ``structured`` is the double statsmodels computed, unrounded (Python writes
  floats with ``repr``, which round-trips exactly).
* ``cov_type`` is one of ``nonrobust``, ``HC0``, ``HC1``, ``HC2``, ``HC3``, ``HAC``
  (Newey-West, Bartlett kernel). For ``HAC`` the lag length is ``hac_lags`` (or
  ``cov_kwds["maxlags"]``), by default ``floor(4 * (n / 100) ** (2 / 9))`` — the Newey-West
  (1994) rule that EViews also uses for its fixed bandwidth; statsmodels' default of no
  small-sample correction is kept (``cov_kwds: {"use_correction": true}`` gives the n/(n−k)
  scaling of EViews and Stata's ``newey``). With a robust ``cov_type`` the standard errors, t
  statistics, p-values, confidence intervals and the F statistic all use the robust
  covariance: the F statistic is then statsmodels' robust Wald test that every coefficient but
  the constant is zero (not the ANOVA F). Tests use the t and F distributions (``use_t=True``)
  for every ``cov_type``, as EViews and Stata do; statsmodels' own default for robust
  covariances would be the normal and chi-squared distributions.
* Diagnostics, always on the OLS residuals: Durbin-Watson; Breusch-Godfrey LM test for serial
  correlation with ``bg_lags`` lags (default 2, EViews' default; pre-sample residuals set to
  zero, as in EViews and statsmodels); Jarque-Bera (skewness and *raw* kurtosis, 3 for the
  normal); White's test with cross terms; Breusch-Pagan in Koenker's studentised form (Obs·R²,
  what EViews reports as "Obs*R-squared"). White and Breusch-Pagan get a constant in their
  auxiliary regression even when the model has none.
* ``aic`` and ``bic`` are statsmodels' (−2·logL + 2k and −2·logL + k·ln n); EViews divides
  them by n, which is given as ``aic_per_obs``, ``bic_per_obs`` and ``hq_per_obs``.
* Without a constant, R² is uncentred (statsmodels' convention for a model with no constant).
* The results object stays in the session as ``name`` (default ``ols_<y>``, with characters
  that cannot be in a name replaced by ``_``), so later code can use it.
"""

import math
import re

from .errors import ToolError, describe_exception
from .formatting import fmt_num, fmt_p, table
from .installing import require
from .namespace import check_identifier, lookup
from .plain_code import DIAGNOSTIC, PANDAS, STATSMODELS, STATTOOLS, literal, name_ref, plain
from .transport import clean_float

COV_TYPES = {"nonrobust": "nonrobust", "hc0": "HC0", "hc1": "HC1", "hc2": "HC2", "hc3": "HC3",
             "hac": "HAC"}
COV_LABELS = {
    "nonrobust": "ordinary (non-robust)",
    "HC0": "White heteroskedasticity-robust (HC0)",
    "HC1": "heteroskedasticity-robust HC1 (n/(n-k) scaling, Stata's robust)",
    "HC2": "heteroskedasticity-robust HC2",
    "HC3": "heteroskedasticity-robust HC3",
    "HAC": "Newey-West HAC",
}
DEFAULT_BG_LAGS = 2


def newey_west_lags(nobs):
    """The Newey-West (1994) rule of thumb: floor(4 · (n/100)^(2/9))."""
    return int(math.floor(4.0 * (nobs / 100.0) ** (2.0 / 9.0)))


def default_name(y):
    return "ols_" + re.sub(r"\W", "_", str(y))


def _whole(x):
    x = clean_float(x)
    if x is not None and float(x).is_integer():
        return int(x)
    return x


def _check_int(value, what, low):
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ToolError("%s must be a whole number, got %r." % (what, value))
    if value < low:
        raise ToolError("%s must be at least %d, got %d." % (what, low, value))
    return value


def _columns(frame, y, x):
    if not isinstance(y, str) or not y:
        raise ToolError("y must be the name of one column.")
    if isinstance(x, str):
        x = [x]
    if not isinstance(x, (list, tuple)) or not all(isinstance(c, str) and c for c in x):
        raise ToolError("x must be a list of column names, e.g. [\"income\", \"price\"].")
    labels = {}
    for col in frame.columns:
        labels.setdefault(str(col), col)
    missing = [c for c in [y] + list(x) if c not in labels]
    if missing:
        import difflib
        hints = []
        for c in missing:
            close = difflib.get_close_matches(c, list(labels), n=2)
            hints.append("%r%s" % (c, " (did you mean %s?)" % " or ".join(repr(m) for m in close)
                                   if close else ""))
        shown = ", ".join(list(labels)[:30]) + (", …" if len(labels) > 30 else "")
        raise ToolError("No column %s in the data. Its columns: %s."
                        % (", ".join(hints), shown), kind="not_found")
    dupes = sorted(set(c for c in x if list(x).count(c) > 1))
    if dupes:
        raise ToolError("x names %s more than once." % ", ".join(repr(d) for d in dupes))
    if y in x:
        raise ToolError("The dependent variable %r is also among the regressors." % y)
    for c in [y] + list(x):
        if list(frame.columns).count(labels[c]) > 1:
            raise ToolError("The data has more than one column named %r; rename them first."
                            % c)
    return [labels[y]], [labels[c] for c in x], list(x)


def _numeric(frame, col, label, np, pd):
    """The column as float64 (NaN for missing), or a ToolError saying why it cannot be."""
    series = frame[col]
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan), "bool"
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan), None
    sample = series.dropna()
    example = repr(sample.iloc[0]) if len(sample) else "only missing values"
    hint = ""
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        converted = pd.to_numeric(sample.head(100), errors="coerce")
        if len(sample) and converted.notna().all():
            hint = (" It holds numbers stored as text: convert it with "
                    "df[%r] = pd.to_numeric(df[%r])." % (label, label))
        else:
            hint = (" For a categorical variable make dummy columns, e.g. "
                    "pd.get_dummies(df[%r], drop_first=True, dtype=float)." % label)
    elif isinstance(dtype, pd.CategoricalDtype):
        hint = (" Make dummy columns, e.g. pd.get_dummies(df[%r], drop_first=True, "
                "dtype=float)." % label)
    elif pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        hint = " Use a numeric version of it (a trend, a year, days since a date)."
    raise ToolError("Column %r is not numeric (dtype %s, e.g. %s).%s"
                    % (label, dtype, example, hint), kind="bad_argument")


def _collinear_message(X, names, np):
    """Which columns make the design rank-deficient, in words."""
    norms = np.sqrt((X ** 2).sum(axis=0))
    zero = [names[j] for j in range(X.shape[1]) if norms[j] == 0]
    if zero:
        return "column%s %s %s all zeros" % ("s" if len(zero) > 1 else "",
                                            ", ".join(repr(z) for z in zero),
                                            "are" if len(zero) > 1 else "is")
    Xs = X / norms
    kept = []
    parts = []
    for j in range(X.shape[1]):
        if np.linalg.matrix_rank(Xs[:, kept + [j]]) == len(kept):
            if names[j] != "const" and "const" in [names[k] for k in kept] and \
                    np.ptp(X[:, j]) == 0:
                parts.append("%r is constant, so it duplicates the constant" % names[j])
            else:
                parts.append("%r is a linear combination of %s" % (
                    names[j], ", ".join(repr(names[k]) for k in kept)))
        else:
            kept.append(j)
    return "; ".join(parts)


def breusch_godfrey(diagnostic, results, lags):
    """``(lm, lm_pvalue, f, f_pvalue)`` from statsmodels, whatever its return convention."""
    import inspect
    fn = diagnostic.acorr_breusch_godfrey
    kwargs = {}
    try:
        if "result_object" in inspect.signature(fn).parameters:
            kwargs["result_object"] = False  # statsmodels ≥ 0.15: keep the plain tuple
    except (TypeError, ValueError):
        pass
    out = fn(results, nlags=lags, **kwargs)
    return tuple(out)[:4]


def _try(notes, label, fn):
    try:
        return fn()
    except Exception as exc:
        notes.append("%s could not be computed: %s" % (label, describe_exception(exc)))
        return None


def ols(ns, data, y, x, add_constant=True, cov_type="nonrobust", bg_lags=None,
        hac_lags=None, cov_kwds=None, name=None):
    """Fit ``y`` on ``x`` by OLS; return coefficients, fit statistics and diagnostics."""
    pd = require("pandas", "ols")
    np = require("numpy", "ols")
    linear_model = require("statsmodels.regression.linear_model", "ols", "statsmodels")
    diagnostic = require("statsmodels.stats.diagnostic", "ols", "statsmodels")
    stattools = require("statsmodels.stats.stattools", "ols", "statsmodels")

    if not isinstance(data, str):
        raise ToolError("data must be the name of a DataFrame in the session.")
    frame = lookup(ns, data)
    if isinstance(frame, pd.Series):
        raise ToolError("%r is a Series; ols needs a DataFrame with the columns y and x." % data)
    if not isinstance(frame, pd.DataFrame):
        raise ToolError("ols needs a pandas DataFrame, but %r is %s." % (data, type(frame).__name__))
    if not isinstance(add_constant, bool):
        raise ToolError("add_constant must be true or false.")
    key = str(cov_type).strip().lower() if isinstance(cov_type, str) else None
    if key not in COV_TYPES:
        raise ToolError("cov_type must be one of nonrobust, HC0, HC1, HC2, HC3, HAC; got %r."
                        % (cov_type,))
    cov_type = COV_TYPES[key]
    bg = DEFAULT_BG_LAGS if bg_lags is None else _check_int(bg_lags, "bg_lags", 1)
    if hac_lags is not None:
        hac_lags = _check_int(hac_lags, "hac_lags", 0)
    if cov_kwds is not None and not isinstance(cov_kwds, dict):
        raise ToolError("cov_kwds must be a JSON object, e.g. {\"maxlags\": 4}.")
    cov_kwds = dict(cov_kwds or {})
    if cov_kwds and cov_type != "HAC":
        raise ToolError("cov_kwds only applies to cov_type HAC (it takes maxlags, kernel, "
                        "use_correction).")
    unknown = [k for k in cov_kwds if k not in ("maxlags", "kernel", "use_correction")]
    if unknown:
        raise ToolError("cov_kwds takes maxlags, kernel and use_correction, not %s."
                        % ", ".join(repr(k) for k in unknown))
    if hac_lags is not None and cov_type != "HAC":
        raise ToolError("hac_lags only applies to cov_type HAC.")
    if "maxlags" in cov_kwds:
        lags = _check_int(cov_kwds["maxlags"], "cov_kwds.maxlags", 0)
        if hac_lags is not None and hac_lags != lags:
            raise ToolError("hac_lags (%d) and cov_kwds.maxlags (%d) disagree; give one."
                            % (hac_lags, lags))
        hac_lags = lags
    if cov_kwds.get("kernel", "bartlett") not in ("bartlett", "uniform"):
        raise ToolError("cov_kwds.kernel must be \"bartlett\" or \"uniform\".")
    name = default_name(y) if name is None else name
    check_identifier(name, "name")

    ycols, xcols, xlabels = _columns(frame, y, x)
    if not xcols and not add_constant:
        raise ToolError("There are no regressors: give x, or keep add_constant true.")
    notes = []
    yv, _ = _numeric(frame, ycols[0], y, np, pd)
    columns = {}
    names = []
    if add_constant:
        if "const" in xlabels:
            raise ToolError("A column named 'const' is among the regressors; with add_constant "
                            "true, statsmodels' constant would have the same name. Rename it, "
                            "or set add_constant false.")
        columns["const"] = np.ones(len(frame))
        names.append("const")
    for col, label in zip(xcols, xlabels):
        values, how = _numeric(frame, col, label, np, pd)
        if how == "bool":
            notes.append("bool column %r used as 0/1" % label)
        columns[label] = values
        names.append(label)
    design = pd.DataFrame(columns, index=frame.index, columns=names)
    target = pd.Series(yv, index=frame.index, name=y)

    values = np.column_stack([yv] + [columns[n] for n in names])
    infinite = np.isinf(values).sum(axis=0)
    if infinite.any():
        which = [("%r (%d)" % (lab, int(c))) for lab, c in zip([y] + names, infinite) if c]
        raise ToolError("Infinite values in %s; replace them (e.g. with NaN to drop those rows) "
                        "before estimating." % ", ".join(which))
    complete = ~np.isnan(values).any(axis=1)
    dropped = int((~complete).sum())
    dropped_labels = [str(v) for v in frame.index[~complete][:10]]
    if dropped:
        target = target[complete]
        design = design[complete]
        positions = np.flatnonzero(~complete)
        kept = np.flatnonzero(complete)
        if len(kept) and ((positions > kept[0]) & (positions < kept[-1])).any():
            notes.append("rows dropped for missing values include rows inside the sample; "
                         "Durbin-Watson, Breusch-Godfrey and HAC treat the remaining rows as "
                         "consecutive")
    nobs = int(complete.sum())
    k = len(names)
    if nobs == 0:
        raise ToolError("No complete rows: every row has a missing value in %s or a regressor."
                        % repr(y))
    if nobs <= k:
        raise ToolError("Too few observations: %d complete row%s for %d coefficient%s. OLS "
                        "needs more observations than coefficients (and the diagnostics need "
                        "a few more)." % (nobs, "" if nobs == 1 else "s", k, "" if k == 1 else "s")
                        + (" %d row%s were dropped for missing values." %
                           (dropped, "" if dropped == 1 else "s") if dropped else ""))
    X = design.to_numpy(dtype="float64")
    norms = np.sqrt((X ** 2).sum(axis=0))
    rank = int(np.linalg.matrix_rank(X / np.where(norms == 0, 1.0, norms))) if (norms > 0).all() \
        else -1
    if rank < k:
        raise ToolError("The regressors are perfectly collinear (%s), so the coefficients are "
                        "not identified. Drop one of the columns involved."
                        % _collinear_message(X, names, np))

    fit_kwargs = {}
    cov_info = {"cov_type": cov_type, "use_t": True}
    if cov_type == "HAC":
        lags = newey_west_lags(nobs) if hac_lags is None else hac_lags
        kw = {"maxlags": lags, "use_correction": bool(cov_kwds.get("use_correction", False))}
        if "kernel" in cov_kwds:
            kw["kernel"] = cov_kwds["kernel"]
        fit_kwargs = {"cov_type": "HAC", "cov_kwds": kw, "use_t": True}
        cov_info.update({"hac_lags": lags, "hac_lag_rule": None if hac_lags is not None else
                         "floor(4*(n/100)^(2/9))", "kernel": kw.get("kernel", "bartlett"),
                         "use_correction": kw["use_correction"]})
    elif cov_type != "nonrobust":
        fit_kwargs = {"cov_type": cov_type, "use_t": True}
    model = linear_model.OLS(target, design)
    results = model.fit(**fit_kwargs)

    resid = np.asarray(results.resid, dtype="float64")
    dw = _try(notes, "Durbin-Watson", lambda: stattools.durbin_watson(resid))
    bg_result = None
    if nobs - k - bg <= 0:
        notes.append("Breusch-Godfrey with %d lags needs more than %d observations" % (bg, k + bg))
    else:
        bg_result = _try(notes, "Breusch-Godfrey",
                         lambda: breusch_godfrey(diagnostic, results, bg))
    jb = _try(notes, "Jarque-Bera", lambda: stattools.jarque_bera(resid))
    has_const = bool(getattr(model, "k_constant", 0))
    het_exog = X if has_const else np.column_stack([np.ones(nobs), X])
    if not has_const:
        notes.append("White and Breusch-Pagan tests include a constant in their auxiliary "
                     "regression (the model has none)")
    m = het_exog.shape[1]
    white = None
    if m <= 1:
        pass  # intercept only: explained below, with Breusch-Pagan
    elif m * (m + 1) // 2 >= nobs:
        notes.append("White's test needs more than %d observations for %d regressors"
                     % (m * (m + 1) // 2, m))
    else:
        white = _try(notes, "White's test", lambda: diagnostic.het_white(resid, het_exog))
    bp = None
    if m > 1:
        bp = _try(notes, "Breusch-Pagan", lambda: diagnostic.het_breuschpagan(resid, het_exog))
    else:
        notes.append("White and Breusch-Pagan need at least one regressor besides the constant")

    conf = np.asarray(results.conf_int(alpha=0.05), dtype="float64")
    params = []
    for i, label in enumerate(names):
        params.append({
            "name": label,
            "coef": clean_float(results.params.iloc[i]),
            "std_err": clean_float(results.bse.iloc[i]),
            "t": clean_float(results.tvalues.iloc[i]),
            "p": clean_float(results.pvalues.iloc[i]),
            "ci_low": clean_float(conf[i, 0]),
            "ci_high": clean_float(conf[i, 1]),
        })
    aic = clean_float(results.aic)
    bic = clean_float(results.bic)
    llf = clean_float(results.llf)
    k_params = int(round(results.df_model + model.k_constant))
    structured = {
        "dependent": y,
        "regressors": names,
        "data": data,
        "nobs": _whole(results.nobs),
        "df_model": _whole(results.df_model),
        "df_resid": _whole(results.df_resid),
        "params": params,
        "r_squared": clean_float(results.rsquared),
        "adj_r_squared": clean_float(results.rsquared_adj),
        "f_statistic": clean_float(results.fvalue),
        "f_pvalue": clean_float(results.f_pvalue),
        "log_likelihood": llf,
        "aic": aic,
        "bic": bic,
        "aic_per_obs": clean_float(aic / nobs) if aic is not None else None,
        "bic_per_obs": clean_float(bic / nobs) if bic is not None else None,
        "hq_per_obs": clean_float((-2.0 * llf + 2.0 * k_params * math.log(math.log(nobs)))
                                  / nobs) if llf is not None and nobs > 2 else None,
        "durbin_watson": clean_float(dw),
        "breusch_godfrey": None if bg_result is None else {
            "lags": bg, "lm": clean_float(bg_result[0]), "lm_pvalue": clean_float(bg_result[1]),
            "f": clean_float(bg_result[2]), "f_pvalue": clean_float(bg_result[3])},
        "jarque_bera": None if jb is None else {
            "statistic": clean_float(jb[0]), "pvalue": clean_float(jb[1]),
            "skew": clean_float(jb[2]), "kurtosis": clean_float(jb[3])},
        "white": None if white is None else {
            "lm": clean_float(white[0]), "lm_pvalue": clean_float(white[1]),
            "f": clean_float(white[2]), "f_pvalue": clean_float(white[3])},
        "breusch_pagan": None if bp is None else {
            "lm": clean_float(bp[0]), "lm_pvalue": clean_float(bp[1]),
            "f": clean_float(bp[2]), "f_pvalue": clean_float(bp[3]), "studentized": True},
        "mean_dependent": clean_float(np.mean(target.to_numpy())),
        "sd_dependent": clean_float(np.std(target.to_numpy(), ddof=1)) if nobs > 1 else None,
        "se_regression": clean_float(math.sqrt(results.scale)),
        "ssr": clean_float(results.ssr),
        "has_constant": has_const,
        "condition_number": clean_float(results.condition_number),
        "dropped_rows": dropped,
        "dropped_index": dropped_labels,
        "model_name": name,
        "notes": notes,
    }
    structured.update(cov_info)
    replaced = name in ns
    structured["replaced_earlier"] = replaced
    ns[name] = results
    text = _text(structured, replaced)
    return text, structured, _ols_code(data, frame, ycols[0], xcols, add_constant, fit_kwargs,
                                       name, structured, has_const, diagnostic)


def _label_literal(frame, data, label):
    """A literal for a column label, or an expression picking it by position in ``data``."""
    try:
        return literal(label)
    except ValueError:
        return "%s.columns[%d]" % (name_ref(data), list(frame.columns).index(label))


def _ols_code(data, frame, ycol, xcols, add_constant, fit_kwargs, name, s, has_const,
              diagnostic):
    """statsmodels code for the same fit, and the diagnostics the tool reported, by its names."""
    import inspect
    y = _label_literal(frame, data, ycol)
    xs = [_label_literal(frame, data, c) for c in xcols]
    res = name_ref(name)
    exog = "_data[[%s]]" % ", ".join(xs)
    if add_constant:
        exog = "sm.add_constant(%s)" % exog
    fit = "fit(%s)" % ", ".join("%s=%s" % (k, literal(v)) for k, v in fit_kwargs.items())
    lines = [
        "_data = %s[[%s]].dropna().astype(float)  # rows with a missing value are left out"
        % (name_ref(data), ", ".join([y] + xs)),
        "%s = sm.OLS(_data[%s], %s).%s" % (res, y, exog, fit),
        "del _data",
        "print(%s.summary())" % res,
    ]
    if s["durbin_watson"] is not None:
        lines.append("print('Durbin-Watson stat: %%.6f' %% durbin_watson(%s.resid))" % res)
    if s["breusch_godfrey"] is not None:
        lags = s["breusch_godfrey"]["lags"]
        extra = ""
        try:
            if "result_object" in inspect.signature(diagnostic.acorr_breusch_godfrey).parameters:
                extra = ", result_object=False"
        except (TypeError, ValueError):
            pass
        lines.append("print('Breusch-Godfrey LM, %d lag%s: Obs*R-squared %%.6f (p %%.6f), "
                     "F-statistic %%.6f (p %%.6f)' %% tuple(acorr_breusch_godfrey(%s, nlags=%d%s)"
                     "[:4]))" % (lags, "" if lags == 1 else "s", res, lags, extra))
    if s["jarque_bera"] is not None:
        lines.append("print('Jarque-Bera: %%.6f (p %%.6f), skewness %%.6f, kurtosis %%.6f' %% "
                     "tuple(jarque_bera(%s.resid)))" % res)
    # White and Breusch-Pagan get a constant in their auxiliary regression even without one.
    het_exog = "%s.model.exog" % res if has_const else \
        "sm.add_constant(%s.model.exog, has_constant='add')" % res
    if s["white"] is not None:
        lines.append("print('White (cross terms): Obs*R-squared %%.6f (p %%.6f)' %% "
                     "tuple(het_white(%s.resid, %s)[:2]))" % (res, het_exog))
    if s["breusch_pagan"] is not None:
        lines.append("print('Breusch-Pagan (Koenker): Obs*R-squared %%.6f (p %%.6f)' %% "
                     "tuple(het_breuschpagan(%s.resid, %s)[:2]))" % (res, het_exog))
    cov = s["cov_type"] + (" (%d lags)" % s["hac_lags"] if s["cov_type"] == "HAC" else "")
    regressors = s["regressors"][1:] if add_constant else s["regressors"]
    summary = "OLS of %s on %s%s in %s, covariance %s; results in %s" % (
        s["dependent"], ", ".join(regressors) or "a constant", " and a constant"
        if add_constant and regressors else "", data, cov, name)
    return plain("ols", summary, lines, [PANDAS, STATSMODELS, DIAGNOSTIC, STATTOOLS])


def _text(s, replaced):
    lines = []
    lines.append("Dependent variable: %s    Method: least squares (statsmodels OLS)"
                 % s["dependent"])
    obs = "Observations: %d" % s["nobs"]
    if s["dropped_rows"]:
        obs += " (%d row%s with missing values dropped)" % (
            s["dropped_rows"], "" if s["dropped_rows"] == 1 else "s")
    lines.append("Data: %s    %s" % (s["data"], obs))
    cov = "Covariance: %s" % COV_LABELS[s["cov_type"]]
    if s["cov_type"] == "HAC":
        cov += ", %d lag%s%s, %s kernel, %s small-sample correction" % (
            s["hac_lags"], "" if s["hac_lags"] == 1 else "s",
            " (rule floor(4(n/100)^(2/9)))" if s.get("hac_lag_rule") else "",
            s["kernel"].capitalize(), "with" if s["use_correction"] else "no")
    if s["cov_type"] != "nonrobust":
        cov += "; t, p and F use this covariance (F is the robust Wald test)"
    lines.append(cov)
    lines.append("Results object: %s%s" % (s["model_name"], " (replaced the earlier one)"
                                             if replaced else ""))
    lines.append("")
    rows = [[p["name"], fmt_num(p["coef"]), fmt_num(p["std_err"]), fmt_num(p["t"], 5),
             fmt_p(p["p"])] for p in s["params"]]
    lines.append(table(["Variable", "Coefficient", "Std. Error", "t-Statistic", "Prob."], rows,
                       align="lrrrr"))
    lines.append("")
    left = [("R-squared", s["r_squared"]), ("Adjusted R-squared", s["adj_r_squared"]),
            ("S.E. of regression", s["se_regression"]), ("Sum squared resid", s["ssr"]),
            ("Log likelihood", s["log_likelihood"]), ("F-statistic", s["f_statistic"]),
            ("Prob(F-statistic)", s["f_pvalue"])]
    right = [("Mean dependent var", s["mean_dependent"]),
             ("S.D. dependent var", s["sd_dependent"]),
             ("AIC (statsmodels)", s["aic"]), ("BIC (statsmodels)", s["bic"]),
             ("Durbin-Watson stat", s["durbin_watson"]),
             ("Condition number", s["condition_number"]), ("", None)]
    stat_rows = []
    for (ln, lv), (rn, rv) in zip(left, right):
        stat_rows.append([ln, fmt_p(lv) if ln.startswith("Prob") else fmt_num(lv), rn,
                          fmt_num(rv) if rn else ""])
    lines.append(table(["", "", "", ""], stat_rows, align="lrlr").split("\n", 1)[1])
    if s["aic_per_obs"] is not None:
        lines.append("EViews scaling (divided by n): Akaike %s, Schwarz %s, Hannan-Quinn %s"
                     % (fmt_num(s["aic_per_obs"]), fmt_num(s["bic_per_obs"]),
                        fmt_num(s["hq_per_obs"])))
    if not s["has_constant"]:
        lines.append("No constant in the model: R-squared is uncentred.")
    lines.append("")
    diag = []
    if s["breusch_godfrey"]:
        b = s["breusch_godfrey"]
        diag.append(["Breusch-Godfrey LM, %d lag%s: Obs*R-squared" % (b["lags"], "" if
                                                                        b["lags"] == 1 else "s"),
                     fmt_num(b["lm"]), fmt_p(b["lm_pvalue"])])
        diag.append(["Breusch-Godfrey LM, %d lag%s: F-statistic" % (
            b["lags"], "" if b["lags"] == 1 else "s"), fmt_num(b["f"]), fmt_p(b["f_pvalue"])])
    if s["jarque_bera"]:
        j = s["jarque_bera"]
        diag.append(["Jarque-Bera (skewness %s, kurtosis %s)" % (fmt_num(j["skew"], 4),
                                                                fmt_num(j["kurtosis"], 4)),
                     fmt_num(j["statistic"]), fmt_p(j["pvalue"])])
    if s["white"]:
        w = s["white"]
        diag.append(["White (cross terms): Obs*R-squared", fmt_num(w["lm"]),
                     fmt_p(w["lm_pvalue"])])
    if s["breusch_pagan"]:
        b = s["breusch_pagan"]
        diag.append(["Breusch-Pagan (Koenker): Obs*R-squared", fmt_num(b["lm"]),
                     fmt_p(b["lm_pvalue"])])
    if diag:
        lines.append(table(["Diagnostic", "Statistic", "Prob."], diag, align="lrr",
                           max_width=60))
    if s["notes"]:
        lines.append("Notes:\n" + "\n".join("- " + n for n in s["notes"]))
    return "\n".join(lines)
