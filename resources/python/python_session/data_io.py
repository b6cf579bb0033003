"""``load_data`` and ``save_data``: data files ⇄ pandas DataFrames in the user namespace.

Formats (by extension unless ``format`` says otherwise; see :mod:`.formats`): CSV (``.csv``),
TSV (``.tsv``, ``.tab``), Excel (``.xlsx``/``.xlsm`` with openpyxl, ``.xls`` with xlrd to read
and xlwt to write on pandas < 2), Stata (``.dta``), Parquet (``.parquet``, pyarrow or
fastparquet), SPSS (``.sav``, pyreadstat), JSON (``.json``, an array of records) and JSON lines
(``.jsonl``/``.ndjson``). The text formats may carry ``.gz``/``.bz2``/``.xz``/``.zip``.

Reading, faithfully:

* CSV/TSV floats are parsed with ``float_precision="round_trip"`` (pandas' default parser
  is off by one unit in the last place for about a third of random doubles); the delimiter of
  a ``.csv`` is detected among ``, ; TAB |`` unless ``sep`` is given.
* JSON floats are parsed with ``precise_float=True``.
* Stata variable labels are kept in ``df.attrs["variable_labels"]`` (and written back by
  ``save_data``); value labels become categoricals (pandas' default).
* ``options`` go to the pandas reader (``read_csv``, ``read_excel``, ``read_stata``,
  ``read_parquet``, ``read_spss``, ``read_json``); unknown ones are refused with a hint.
* Nothing is bound under ``name`` unless the whole file was read.

Writing, safely:

* A Series is written as a one-column frame; an index that is not the default 0..n-1 range is
  written as ordinary column(s) first (so every format round-trips the same way).
* Missing folders are created. The file is written to a temporary name beside the target and
  moved into place, so a failed write never leaves half a file.
* An existing file is replaced only when it holds the same kind of data (judged by its first
  bytes); CSV text is never written over a workbook, a Parquet file, an image…
* JSON is written by Python's ``json`` (``repr`` floats: exact), not by ``DataFrame.to_json``
  (whose precision stops at 15 digits); NaN is written as null.
* Stata files are written as format 118 (Stata 14 or later; Unicode).
"""

import contextlib
import csv
import datetime
import decimal
import io
import json
import math
import numbers
import os
import sys

from .errors import ToolError, describe_exception
from .formats import (DATA_FORMATS, FAMILY_LABELS, check_overwrite, family_of, format_for,
                      resolve_path, sniff)
from .formatting import frame_text, human_bytes, one_line, table, type_name
from .installing import available, missing_package, require
from .namespace import check_identifier, dataframe
from .plain_code import OS, PANDAS, invocation, literal, name_ref, plain

FORBIDDEN_OPTIONS = ("iterator", "chunksize")


# ---------------------------------------------------------------------------------------------
# shared

def _label(fmt):
    return DATA_FORMATS[fmt][0]


def _check_options(options, fn, fixed, purpose):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ToolError("options must be a JSON object of reader arguments, e.g. "
                        "{\"sep\": \";\", \"encoding\": \"latin-1\"}; got %s."
                        % type_name(options))
    import inspect
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    var_kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
    for key in options:
        if key in fixed:
            raise ToolError("option %r is set by %s itself and cannot be given." % (key, purpose))
        if key in FORBIDDEN_OPTIONS:
            raise ToolError("option %r would read the file in pieces; %s reads the whole file "
                            "(use nrows or usecols to read less)." % (key, purpose))
        if params and not var_kw and key not in params:
            import difflib
            close = difflib.get_close_matches(key, list(params), n=2)
            raise ToolError("%s does not take the option %r%s." % (
                getattr(fn, "__name__", "the reader"), key,
                " (did you mean %s?)" % " or ".join(repr(c) for c in close) if close else ""))
    return dict(options)


def _missing_file(path):
    import difflib
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        probe = folder
        while probe and not os.path.isdir(probe):
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
        return ToolError("No file at %s: the folder %s does not exist (the kernel's working "
                         "folder is %s)." % (path, folder, os.getcwd()), kind="not_found")
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    close = difflib.get_close_matches(os.path.basename(path), names, n=3, cutoff=0.5)
    hint = " Did you mean %s?" % " or ".join(close) if close else ""
    return ToolError("No file at %s.%s (relative paths start from the kernel's working folder, "
                     "%s.)" % (path, hint, os.getcwd()), kind="not_found")


def _frame_report(df):
    pd = sys.modules["pandas"]
    missing = df.isna().sum()
    columns = []
    for i, col in enumerate(df.columns):
        columns.append({"name": str(col), "dtype": str(df.dtypes.iloc[i]),
                        "missing": int(missing.iloc[i])})
    return columns


def _columns_text(columns, rows, limit=60):
    body = [[c["name"], c["dtype"], "%d" % c["missing"] + (" (%.1f%%)" % (100.0 * c["missing"] /
                                                                           rows) if rows and
                                                           c["missing"] else "")]
            for c in columns[:limit]]
    text = table(["column", "dtype", "missing"], body, align="llr")
    if len(columns) > limit:
        text += "\n… and %d more columns" % (len(columns) - limit)
    return text


# ---------------------------------------------------------------------------------------------
# reading

def _text_head(path, compression, encoding, size=65536):
    """The first ``size`` bytes of a text file as text (decompressed), or None."""
    opener = {"gzip": "gzip", "bz2": "bz2", "xz": "lzma"}.get(compression)
    try:
        if compression is None:
            with open(path, "rb") as handle:
                raw = handle.read(size)
        elif opener:
            module = __import__(opener)
            with module.open(path, "rb") as handle:
                raw = handle.read(size)
        else:
            return None
    except (OSError, EOFError):
        return None
    return raw.decode(encoding or "utf-8", errors="replace")


def sniff_delimiter(text):
    """The delimiter among , ; TAB | that splits the first lines most consistently."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        lines = lines[:-1][:50] if len(text) >= 65536 else lines[:50]
    if not lines:
        return ","
    best = (",", (0.0, 0))
    for delim in (",", ";", "\t", "|"):
        try:
            counts = [len(row) for row in csv.reader(lines, delimiter=delim)]
        except csv.Error:
            continue
        if not counts:
            continue
        mode = max(set(counts), key=counts.count)
        if mode < 2:
            continue
        score = (counts.count(mode) / float(len(counts)), mode)
        if score > best[1]:
            best = (delim, score)
    return best[0]


def _read_csv(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_csv, ("filepath_or_buffer",), "load_data")
    notes = []
    if "sep" not in opts and "delimiter" not in opts:
        if fmt == "tsv":
            opts["sep"] = "\t"
        else:
            head = _text_head(path, compression, opts.get("encoding"))
            delim = sniff_delimiter(head) if head else ","
            opts["sep"] = delim
            if delim != ",":
                notes.append("delimiter detected: %r (pass options {\"sep\": …} to override)"
                             % delim)
    if opts.get("engine") in (None, "c") and "float_precision" not in opts:
        opts["float_precision"] = "round_trip"
    frame = pd.read_csv(path, **opts)
    if opts.get("sep") == ";" and "decimal" not in opts:
        for col in frame.columns[:50]:
            sample = frame[col].dropna().head(20)
            if _is_text_column(frame[col], pd) and len(sample) and all(
                    isinstance(v, str) and v.replace(",", "", 1).replace("-", "", 1).isdigit()
                    for v in sample):
                notes.append("column %r holds numbers with decimal commas; pass options "
                             "{\"decimal\": \",\"} to read them as numbers" % str(col))
                break
    return frame, {}, notes, ("pd.read_csv", opts)


def _excel_engine_package(kind):
    return {"zip": ("openpyxl", "openpyxl"), "ole": ("xlrd", "xlrd")}.get(kind)


def _read_excel(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_excel, ("io",), "load_data")
    kind = sniff(path)
    if kind not in ("zip", "ole"):
        raise ToolError("%s is not an Excel workbook: it holds %s.%s"
                        % (path, FAMILY_LABELS.get(kind, kind), _format_hint(kind)),
                        kind="bad_file")
    module, package = _excel_engine_package(kind)
    what = "Reading .xls (Excel 97-2003) files" if kind == "ole" else \
        "Reading .xlsx (Excel) files"
    require(module, what, package)
    sheet = opts.pop("sheet_name", 0)
    if sheet is None or isinstance(sheet, (list, tuple, dict)):
        raise ToolError("load_data reads one sheet at a time: give sheet_name as one sheet "
                        "name or number (0 is the first).")
    engine = opts.pop("engine", None)
    with pd.ExcelFile(path, engine=engine) as book:
        sheets = list(book.sheet_names)
        if isinstance(sheet, bool) or not isinstance(sheet, (int, str)):
            raise ToolError("sheet_name must be a sheet name or a number.")
        if isinstance(sheet, str) and sheet not in sheets:
            raise ToolError("There is no sheet named %r in %s. Its sheets: %s."
                            % (sheet, path, ", ".join(repr(s) for s in sheets)),
                            kind="not_found")
        if isinstance(sheet, int) and not -len(sheets) <= sheet < len(sheets):
            raise ToolError("Sheet number %d is out of range: %s has %d sheet%s (%s)."
                            % (sheet, path, len(sheets), "" if len(sheets) == 1 else "s",
                               ", ".join(repr(s) for s in sheets)), kind="not_found")
        frame = pd.read_excel(book, sheet_name=sheet, **opts)
    chosen = sheet if isinstance(sheet, str) else sheets[sheet]
    notes = []
    if len(sheets) > 1:
        notes.append("read sheet %r; the workbook also has %s (pass options {\"sheet_name\": "
                     "…})" % (chosen, ", ".join(repr(s) for s in sheets if s != chosen)))
    used = dict({"sheet_name": chosen}, **({"engine": engine} if engine else {}))
    used.update(opts)
    return frame, {"sheet": chosen, "sheets": sheets}, notes, ("pd.read_excel", used)


def _read_stata(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_stata, ("filepath_or_buffer",), "load_data")
    reader = pd.read_stata(path, iterator=True, **opts)
    try:
        frame = reader.read()
        try:
            labels = {k: v for k, v in reader.variable_labels().items() if v}
        except Exception:
            labels = {}
    finally:
        close = getattr(reader, "close", None)
        if close is not None:
            close()
    extra = {}
    if labels:
        frame.attrs["variable_labels"] = labels
        extra["variable_labels"] = labels
    return frame, extra, [], ("pd.read_stata", opts)


def _read_parquet(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_parquet, ("path",), "load_data")
    if not (available("pyarrow") or available("fastparquet")):
        raise missing_package("pyarrow", "Reading Parquet files")
    if opts.get("engine") == "fastparquet":
        require("fastparquet", "Reading Parquet with engine='fastparquet'")
    elif opts.get("engine") in (None, "auto", "pyarrow") and available("pyarrow"):
        require("pyarrow", "Reading Parquet files")
    return pd.read_parquet(path, **opts), {}, [], ("pd.read_parquet", opts)


def _read_spss(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_spss, ("path",), "load_data")
    require("pyreadstat", "Reading SPSS (.sav) files")
    return pd.read_spss(path, **opts), {}, [], ("pd.read_spss", opts)


def _read_json(pd, path, compression, options, fmt):
    opts = _check_options(options, pd.read_json, ("path_or_buf",), "load_data")
    if fmt == "jsonl":
        opts.setdefault("lines", True)
    opts.setdefault("precise_float", True)
    if opts.get("typ", "frame") != "frame":
        raise ToolError("load_data makes DataFrames; leave out typ (or give \"frame\").")
    return pd.read_json(path, **opts), {}, [], ("pd.read_json", opts)


READERS = {"csv": _read_csv, "tsv": _read_csv, "xlsx": _read_excel, "xls": _read_excel,
           "stata": _read_stata, "parquet": _read_parquet, "spss": _read_spss,
           "json": _read_json, "jsonl": _read_json}


def _format_hint(kind):
    for fmt, (_, _, family) in DATA_FORMATS.items():
        if family == kind and fmt not in ("tsv", "jsonl"):
            return " If it is %s, pass format=%r." % (_label(fmt), fmt)
    return ""


def _read_failure(exc, path, fmt, options):
    """Turn an exception from a pandas reader into a ToolError a model can act on."""
    import zipfile
    if isinstance(exc, ToolError):
        return exc
    label = _label(fmt)
    if isinstance(exc, FileNotFoundError):
        return _missing_file(path)
    if isinstance(exc, PermissionError):
        return ToolError("Permission denied reading %s." % path, kind="bad_file")
    if isinstance(exc, UnicodeError):
        detail = ""
        if isinstance(exc, UnicodeDecodeError):
            detail = " (byte 0x%02x at offset %d)" % (exc.object[exc.start], exc.start)
        encoding = (options or {}).get("encoding") or "UTF-8"
        return ToolError(
            "%s is not valid %s text%s. If it was saved by Excel or an older Windows program, "
            "try options: {\"encoding\": \"latin-1\"} (or \"cp1252\"; \"utf-16\" for "
            "Unicode text from Excel)." % (path, encoding, detail), kind="bad_file")
    if isinstance(exc, ImportError):
        import re
        match = re.search(r"optional dependency '([\w.-]+)'", str(exc)) or \
            re.search(r"No module named '([\w.-]+)'", str(exc))
        package = match.group(1).split(".")[0] if match else "the reader's package"
        return missing_package(package, "Reading %s files" % label)
    pd = sys.modules.get("pandas")
    errors = getattr(pd, "errors", None)
    if errors is not None and isinstance(exc, errors.EmptyDataError):
        return ToolError("%s is empty: there are no columns to read." % path, kind="bad_file")
    if errors is not None and isinstance(exc, errors.ParserError):
        message = one_line(str(exc), 300)
        hint = ""
        if "Expected" in message and "fields" in message:
            hint = (" Rows have different numbers of fields: check the delimiter (options "
                    "{\"sep\": \";\"}), quoting, or skip a preamble with {\"skiprows\": n}.")
        return ToolError("Could not parse %s as %s: %s.%s" % (path, label, message, hint),
                         kind="bad_file")
    if isinstance(exc, zipfile.BadZipFile):
        return ToolError("%s is not a valid %s: %s." % (path, label, exc), kind="bad_file")
    if isinstance(exc, TypeError):
        return ToolError("Bad option for the %s reader: %s" % (label, describe_exception(exc)),
                         kind="bad_argument")
    message = describe_exception(exc)
    for key in (options or {}):
        if str(key).lower() in str(exc).lower():
            return ToolError("Could not read %s with the given options: %s" % (path, message),
                             kind="bad_argument")
    found = None
    try:
        found = sniff(path) if os.path.isfile(path) else None
    except OSError:
        pass
    hint = ""
    if found is not None and found != DATA_FORMATS[fmt][2]:
        hint = " The file holds %s.%s" % (FAMILY_LABELS.get(found, found), _format_hint(found))
    if fmt == "json" and "Trailing data" in str(exc):
        hint += " If it has one JSON object per line, pass format=\"jsonl\"."
    return ToolError("Could not read %s as %s: %s.%s" % (path, label, one_line(message, 300),
                                                         hint), kind="bad_file")


def _is_text_column(series, pd):
    return series.dtype == object or isinstance(series.dtype, pd.StringDtype)


def _hints(frame, fmt):
    pd = sys.modules["pandas"]
    notes = []
    cols = [str(c) for c in frame.columns]
    if cols and cols[0].startswith("Unnamed: 0") and fmt in ("csv", "tsv", "xlsx", "xls"):
        notes.append("the first column has no header (probably a saved index); pass options "
                     "{\"index_col\": 0} to use it as the index")
    import re
    iso = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?")
    dated = []
    for col in frame.columns[:200]:
        series = frame[col]
        if not _is_text_column(series, pd):
            continue
        sample = series.dropna().head(20)
        if len(sample) and all(isinstance(v, str) and iso.match(v) for v in sample):
            dated.append(str(col))
    if dated and fmt in ("csv", "tsv", "json", "jsonl"):
        notes.append("column%s %s look%s like dates; pass options {\"parse_dates\": %s} (CSV) "
                     "or convert with pd.to_datetime" % (
                         "s" if len(dated) > 1 else "", ", ".join(repr(d) for d in dated[:5]),
                         "" if len(dated) > 1 else "s", json.dumps(dated[:5])))
    return notes


def load_data(ns, path, name, format=None, options=None):
    """Read a data file into a DataFrame bound as ``name`` in the user namespace.

    structured: ``{"name", "path", "format", "rows", "columns", "dtypes": {col: dtype},
    "missing": {col: count}, "column_info": [{name, dtype, missing}], "file_bytes",
    "replaced": "<type of the value that was under name>" | null, "notes": [...]}`` plus
    ``sheet``/``sheets`` for Excel and ``variable_labels`` for Stata.
    """
    check_identifier(name)
    abspath = resolve_path(path)
    fmt, compression, _ = format_for(abspath, format)
    if not os.path.exists(abspath):
        raise _missing_file(abspath)
    if os.path.isdir(abspath) and fmt != "parquet":
        raise ToolError("%s is a folder, not a file." % abspath)
    pd = require("pandas", "load_data")
    try:
        frame, extra, notes, reader = READERS[fmt](pd, abspath, compression, options, fmt)
    except Exception as exc:
        raise _read_failure(exc, abspath, fmt, options)
    if not isinstance(frame, pd.DataFrame):
        raise ToolError("Reading %s gave %s, not a DataFrame." % (abspath, type_name(frame)),
                        kind="bad_file")
    notes = list(notes) + _hints(frame, fmt)
    previous = ns.get(name)
    replaced = type_name(previous) if name in ns else None
    ns[name] = frame  # only now, after the whole file was read

    rows, ncols = frame.shape
    columns = _frame_report(frame)
    try:
        size = os.path.getsize(abspath) if os.path.isfile(abspath) else None
    except OSError:
        size = None
    structured = {
        "name": name, "path": abspath, "format": fmt, "rows": rows, "columns": ncols,
        "dtypes": {c["name"]: c["dtype"] for c in columns},
        "missing": {c["name"]: c["missing"] for c in columns},
        "column_info": columns, "file_bytes": size, "replaced": replaced, "notes": notes,
    }
    structured.update(extra)
    lines = ["Loaded %s (%s%s) into %s: %d rows × %d columns."
             % (abspath, _label(fmt), ", %s" % human_bytes(size) if size is not None else "",
                name, rows, ncols)]
    if replaced:
        lines.append("(%s replaced the %s that was there.)" % (name, replaced))
    lines.append(_columns_text(columns, rows))
    if "variable_labels" in extra:
        lines.append("Variable labels: " + "; ".join(
            "%s: %s" % (k, v) for k, v in list(extra["variable_labels"].items())[:30]))
    if rows:
        lines.append("First rows:\n" + frame_text(frame.head(5)))
    if notes:
        lines.append("Notes:\n" + "\n".join("- " + n for n in notes))
    return "\n".join(lines), structured, _load_code(name, abspath, fmt, reader, extra, rows, ncols)


def _load_code(name, abspath, fmt, reader, extra, rows, ncols):
    """``name = pd.read_<format>('/abs/path', <the options the read used>)``."""
    function, options = reader
    target = name_ref(name)
    lines = ["%s = %s" % (target, invocation(function, [abspath], options))]
    if "variable_labels" in extra:
        lines.append("%s.attrs['variable_labels'] = %s" % (target, literal(extra["variable_labels"])))
    summary = "%s (%s) into %s, %d rows × %d columns" % (abspath, _label(fmt), name, rows, ncols)
    return plain("load_data", summary, lines, [PANDAS])


# ---------------------------------------------------------------------------------------------
# writing

def _prepare(frame, pd):
    """The frame to write, with a non-default index turned into column(s)."""
    index = frame.index
    default = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and \
        index.name is None
    if default:
        return frame, None
    names = [n if n is not None else ("index" if index.nlevels == 1 else "level_%d" % i)
             for i, n in enumerate(index.names)]
    clash = [n for n in names if n in frame.columns]
    if clash:
        raise ToolError("The index would be written as column %s, which already exists; "
                        "reset or rename the index first." % ", ".join(repr(c) for c in clash))
    return frame.reset_index(), [str(n) for n in names]


def _plain(value):
    """One cell as plain JSON data for a file: exact numbers, ISO dates, null for missing."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    np = sys.modules.get("numpy")
    pd = sys.modules.get("pandas")
    if pd is not None and (value is pd.NaT or value is getattr(pd, "NA", None)):
        return None
    if np is not None and isinstance(value, np.generic):
        if isinstance(value, np.datetime64):
            return None if np.isnat(value) else str(np.datetime_as_string(value, unit="auto"))
        if isinstance(value, np.timedelta64):
            from .transport import iso_duration
            return None if np.isnat(value) else iso_duration(
                int(value.astype("timedelta64[ns]").astype("int64")))
        return _plain(value.item())
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        from .transport import iso_duration, _timedelta_ns
        return iso_duration(_timedelta_ns(value))
    if isinstance(value, decimal.Decimal):
        return _plain(float(value))
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _column_values(series, np, pd):
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        arr = series.to_numpy().astype(np.float64)
        out = arr.astype(object)
        out[~np.isfinite(arr)] = None
        return out.tolist()
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return series.to_numpy().tolist()
    return [_plain(v) for v in series.to_numpy(dtype=object)]


def _write_json(frame, path, compression, lines, np, pd, final_path):
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) < len(columns):
        raise ToolError("JSON records need unique column names; rename the duplicates first.")
    values = [_column_values(frame.iloc[:, j], np, pd) for j in range(frame.shape[1])]
    if compression in (None, "gzip", "bz2", "xz"):
        opener = {"gzip": "gzip", "bz2": "bz2", "xz": "lzma"}.get(compression)
        raw = __import__(opener).open(path, "wb") if opener else open(path, "wb")
        archive = None
    elif compression == "zip":
        import zipfile
        archive = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        raw = None
    else:
        raise ToolError("Writing %s-compressed JSON is not supported; use .gz, .bz2 or .xz."
                        % compression)
    buffer = io.StringIO() if archive is not None else None
    out = buffer if buffer is not None else io.TextIOWrapper(raw, encoding="utf-8",
                                                             newline="\n")
    try:
        if not lines:
            out.write("[")
        for i, row in enumerate(zip(*values)):
            record = json.dumps(dict(zip(columns, row)), ensure_ascii=False, allow_nan=False)
            if lines:
                out.write(record + "\n")
            else:
                out.write(("\n" if i == 0 else ",\n") + record)
        if not frame.shape[1]:
            for i in range(len(frame)):
                out.write("{}\n" if lines else ("\n{}" if i == 0 else ",\n{}"))
        if not lines:
            out.write("\n]\n")
    finally:
        if archive is not None:
            inner = os.path.basename(final_path)
            archive.writestr(inner[:-4] if inner.lower().endswith(".zip") else inner,
                             buffer.getvalue().encode("utf-8"))
            archive.close()
        else:
            out.close()


@contextlib.contextmanager
def _exact_excel_numbers():
    """Make openpyxl write every double with ``repr`` (17 significant digits when needed).

    openpyxl formats numbers with ``"%.16g"``, which changes the last digit of about four
    doubles in ten (Excel itself writes up to 17 digits, and reads them back exactly). The
    formatter is swapped only for the duration of one write and always restored.
    """
    try:
        import openpyxl.cell._writer as writer
    except Exception:
        yield
        return
    original = getattr(writer, "safe_string", None)
    if original is None:
        yield
        return

    def exact(value):
        if isinstance(value, bool) or value is None:
            return original(value)
        if isinstance(value, numbers.Integral):
            return str(int(value))
        if isinstance(value, numbers.Real):
            value = float(value)
            return repr(value) if math.isfinite(value) else ""
        return original(value)

    writer.safe_string = exact
    try:
        yield
    finally:
        writer.safe_string = original


def _write(fmt, compression, frame, tmp, final_path, np, pd, notes):
    if fmt in ("csv", "tsv"):
        comp = compression
        if compression == "zip":
            inner = os.path.basename(final_path)
            comp = {"method": "zip", "archive_name": inner[:-4]}
        frame.to_csv(tmp, index=False, sep="\t" if fmt == "tsv" else ",", compression=comp)
    elif fmt == "xlsx":
        rows, cols = frame.shape
        if rows + 1 > 1048576 or cols > 16384:
            raise ToolError("Excel sheets hold at most 1,048,575 data rows and 16,384 columns; "
                            "this frame is %d × %d. Save it as CSV or Parquet." % (rows, cols))
        with _exact_excel_numbers():
            frame.to_excel(tmp, index=False, engine="openpyxl", sheet_name="Sheet1")
    elif fmt == "xls":
        frame.to_excel(tmp, index=False, engine="xlwt", sheet_name="Sheet1")
    elif fmt == "stata":
        labels = frame.attrs.get("variable_labels") if hasattr(frame, "attrs") else None
        kwargs = {}
        if isinstance(labels, dict):
            kept = {k: str(v)[:80] for k, v in labels.items() if k in frame.columns}
            if kept:
                kwargs["variable_labels"] = kept
        frame.to_stata(tmp, write_index=False, version=118, **kwargs)
    elif fmt == "parquet":
        bad = [c for c in frame.columns if not isinstance(c, str)]
        if bad:
            raise ToolError("Parquet needs string column names; %s %s not. Rename them, e.g. "
                            "df.columns = df.columns.map(str)."
                            % (", ".join(repr(c) for c in bad[:5]),
                               "is" if len(bad) == 1 else "are"))
        frame.to_parquet(tmp, index=False)
    elif fmt == "spss":
        pyreadstat = require("pyreadstat", "Writing SPSS (.sav) files")
        pyreadstat.write_sav(frame, tmp)
    elif fmt in ("json", "jsonl"):
        _write_json(frame, tmp, compression, fmt == "jsonl", np, pd, final_path)


def _writer_packages(fmt, pd):
    if fmt == "xlsx":
        require("openpyxl", "Writing .xlsx (Excel) files")
    elif fmt == "xls":
        major = int(pd.__version__.split(".")[0])
        if major >= 2:
            raise ToolError("pandas %s cannot write .xls (Excel 97-2003) files; save as .xlsx "
                            "instead, which every Excel since 2007 opens." % pd.__version__)
        require("xlwt", "Writing .xls (Excel 97-2003) files")
    elif fmt == "parquet":
        if not (available("pyarrow") or available("fastparquet")):
            raise missing_package("pyarrow", "Writing Parquet files")
        if available("pyarrow"):
            require("pyarrow", "Writing Parquet files")
    elif fmt == "spss":
        require("pyreadstat", "Writing SPSS (.sav) files")


def _make_folders(folder):
    created = []
    probe = folder
    while probe and not os.path.exists(probe):
        created.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if created:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise ToolError("Could not create the folder %s: %s" % (folder, exc.strerror or exc),
                            kind="bad_argument")
    return list(reversed(created))


def _remove_folders(created):
    for folder in reversed(created):
        try:
            os.rmdir(folder)
        except OSError:
            break


def write_atomically(final_path, write):
    """Run ``write(tmp_path)`` then move the temporary file onto ``final_path``.

    Returns the folders that had to be created. On failure the temporary file (and any
    folder made for it) is removed and the exception goes on.
    """
    folder = os.path.dirname(final_path)
    created = _make_folders(folder)
    base = os.path.basename(final_path)
    # The temporary name keeps the extension: some writers (Excel) choose by it.
    tmp = os.path.join(folder, ".%s.tmp-%d%s" % (base, os.getpid(),
                                                 os.path.splitext(base)[1]))
    try:
        write(tmp)
        os.replace(tmp, final_path)
    except BaseException:
        try:
            if os.path.isdir(tmp):
                import shutil
                shutil.rmtree(tmp, ignore_errors=True)
            elif os.path.exists(tmp):
                os.remove(tmp)
        except OSError:
            pass
        _remove_folders(created)
        raise
    return created


def save_data(ns, name, path, format=None):
    """Write the DataFrame (or Series) called ``name`` to ``path``.

    structured: ``{"name", "path", "format", "rows", "columns", "bytes", "replaced": bool,
    "created_folders": [...], "index_columns": [...] | null, "notes": [...]}``.
    """
    pd = require("pandas", "save_data")
    np = require("numpy", "save_data")
    frame = dataframe(ns, name, "save_data")
    abspath = resolve_path(path)
    fmt, compression, by_ext = format_for(abspath, format)
    if format is not None and by_ext is not None and by_ext != fmt:
        raise ToolError("format %r does not match the file extension of %s (which means %s). "
                        "Change one of them." % (format, abspath, _label(by_ext)))
    label = _label(fmt) + (" (%s)" % compression if compression else "")
    replacing = check_overwrite(abspath, family_of(fmt, compression), label)
    _writer_packages(fmt, pd)
    out, index_columns = _prepare(frame, pd)
    notes = []
    if index_columns:
        notes.append("the index was written as column%s %s"
                     % ("s" if len(index_columns) > 1 else "", ", ".join(index_columns)))
    if fmt in ("json", "jsonl") and any(not isinstance(c, str) for c in out.columns):
        notes.append("column names were written as strings")
    try:
        created = write_atomically(abspath, lambda tmp: _write(fmt, compression, out, tmp,
                                                               abspath, np, pd, notes))
    except ToolError:
        raise
    except ImportError as exc:
        import re
        match = re.search(r"optional dependency '([\w.-]+)'", str(exc)) or \
            re.search(r"No module named '([\w.-]+)'", str(exc))
        raise missing_package(match.group(1).split(".")[0] if match else str(exc),
                              "Writing %s files" % label)
    except (ValueError, TypeError, KeyError, NotImplementedError) as exc:
        raise ToolError("Could not write %s as %s: %s" % (abspath, label, one_line(
            describe_exception(exc), 400)), kind="bad_argument")
    except OSError as exc:
        raise ToolError("Could not write %s: %s" % (abspath, exc.strerror or exc),
                        kind="bad_argument")
    size = os.path.getsize(abspath)
    rows, cols = out.shape
    structured = {"name": name, "path": abspath, "format": fmt, "rows": rows, "columns": cols,
                  "bytes": size, "replaced": replacing, "created_folders": created,
                  "index_columns": index_columns, "notes": notes}
    text = "Saved %s (%d rows × %d columns) to %s as %s, %s." % (
        name, rows, cols, abspath, label, human_bytes(size))
    if replacing:
        text += " It replaced the %s file that was there." % label
    if created:
        text += " Created folder%s %s." % ("s" if len(created) > 1 else "", ", ".join(created))
    if notes:
        text += "\nNotes:\n" + "\n".join("- " + n for n in notes)
    code = _save_code(ns, name, abspath, fmt, compression, frame, index_columns, out, label)
    return text, structured, code


def _save_code(ns, name, abspath, fmt, compression, frame, index_columns, out, label):
    """The pandas writer call that writes the same file (the folder made first)."""
    pd = sys.modules["pandas"]
    source = name_ref(name)
    original = ns.get(name)
    if isinstance(original, pd.Series):
        try:
            source += ".to_frame(name=%s)" % literal(frame.columns[0])
        except ValueError:
            source += ".to_frame()"
    if index_columns:
        source += ".reset_index()"
    lines = [invocation("os.makedirs", [os.path.dirname(abspath)], {"exist_ok": True})]
    imports = [OS, PANDAS]
    if fmt in ("csv", "tsv"):
        keywords = {"index": False, "sep": "\t" if fmt == "tsv" else ","}
        if compression == "zip":
            keywords["compression"] = {"method": "zip",
                                       "archive_name": os.path.basename(abspath)[:-4]}
        elif compression:
            keywords["compression"] = compression
        lines.append("%s.%s" % (source, invocation("to_csv", [abspath], keywords)))
    elif fmt in ("xlsx", "xls"):
        if fmt == "xlsx":
            lines.append("# save_data writes every number with all 17 significant digits; "
                         "openpyxl's default writes 16")
        lines.append("%s.%s" % (source, invocation("to_excel", [abspath], {
            "index": False, "engine": "openpyxl" if fmt == "xlsx" else "xlwt",
            "sheet_name": "Sheet1"})))
    elif fmt == "stata":
        keywords = {"write_index": False, "version": 118}
        labels = frame.attrs.get("variable_labels") if hasattr(frame, "attrs") else None
        if isinstance(labels, dict):
            kept = {k: str(v)[:80] for k, v in labels.items() if k in out.columns}
            if kept:
                keywords["variable_labels"] = kept
        lines.append("%s.%s" % (source, invocation("to_stata", [abspath], keywords)))
    elif fmt == "parquet":
        lines.append("%s.%s" % (source, invocation("to_parquet", [abspath], {"index": False})))
    elif fmt == "spss":
        imports.append("import pyreadstat")
        lines.append("pyreadstat.write_sav(%s, %s)" % (source, literal(abspath)))
    elif fmt in ("json", "jsonl"):
        lines.append("# save_data writes numbers exactly (Python's repr); to_json keeps 15 "
                     "significant digits")
        keywords = {"orient": "records", "lines": fmt == "jsonl", "force_ascii": False,
                    "double_precision": 15, "date_format": "iso"}
        if compression:
            keywords["compression"] = compression
        lines.append("%s.%s" % (source, invocation("to_json", [abspath], keywords)))
    rows, cols = out.shape
    summary = "%s written to %s as %s, %d rows × %d columns" % (name, abspath, label, rows, cols)
    return plain("save_data", summary, lines, imports)
