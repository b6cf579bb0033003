"""load_data and save_data: round trips in every format, and every failure explained."""

import gzip
import os
import unittest

import numpy as np
import pandas as pd

from python_session.installing import install_command
from tests.support import ToolTestCase, has, hidden_modules

PANDAS_MAJOR = int(pd.__version__.split(".")[0])
TEXT_DTYPE = str(pd.Series(["a"]).dtype)  # "object"; "str" from pandas 3


def sample(rows=40):
    """A frame whose floats need all 17 significant digits to survive."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({
        "x": rng.standard_normal(rows) * 10.0 ** rng.integers(-20, 20, rows),
        "y": rng.random(rows),
        "n": rng.integers(-10 ** 6, 10 ** 6, rows),
        "name": ["item %d é" % i for i in range(rows)],
    })
    frame.loc[3, "x"] = np.nan
    return frame


class RoundTrips(ToolTestCase):
    def round_trip(self, filename, fmt=None, options=None, frame=None):
        frame = sample() if frame is None else frame
        ns = {"df": frame}
        path = self.path("out", filename)
        args = {"name": "df", "path": path}
        if fmt:
            args["format"] = fmt
        saved = self.ok("save_data", ns, **args)["structured"]
        self.assertEqual(saved["path"], path)
        self.assertEqual(saved["rows"], len(frame))
        self.assertEqual(saved["bytes"], os.path.getsize(path))
        self.assertFalse(saved["replaced"])
        load = {"name": "back", "path": path}
        if fmt:
            load["format"] = fmt
        if options:
            load["options"] = options
        loaded = self.ok("load_data", ns, **load)["structured"]
        self.assertEqual(loaded["rows"], len(frame))
        self.assertEqual(loaded["columns"], frame.shape[1])
        self.assertEqual(loaded["missing"]["x"], 1)
        back = ns["back"]
        self.assertEqual(list(back.columns), list(frame.columns))
        # Exact equality of every double, not "almost".
        for col in ("x", "y"):
            a = frame[col].to_numpy()
            b = back[col].to_numpy(dtype=float)
            self.assertTrue(np.array_equal(a, b, equal_nan=True), "%s lost digits in %s"
                            % (col, filename))
        self.assertEqual(back["n"].astype("int64").tolist(), frame["n"].tolist())
        self.assertEqual(back["name"].tolist(), frame["name"].tolist())
        # Saving again over the same kind of file is allowed and reported.
        again = self.ok("save_data", ns, **args)["structured"]
        self.assertTrue(again["replaced"])
        return ns

    def test_csv(self):
        ns = self.round_trip("data.csv")
        self.assertTrue(os.path.isdir(self.path("out")))

    def test_tsv(self):
        self.round_trip("data.tsv")
        with open(self.path("out", "data.tsv"), encoding="utf-8") as handle:
            self.assertIn("\t", handle.readline())

    def test_compressed_csv(self):
        self.round_trip("data.csv.gz")
        with gzip.open(self.path("out", "data.csv.gz"), "rt", encoding="utf-8") as handle:
            self.assertTrue(handle.readline().startswith("x,y,n,name"))
        self.round_trip("data.csv.zip")
        self.round_trip("data.csv.bz2")

    def test_json_and_json_lines(self):
        self.round_trip("data.json")
        self.round_trip("data.jsonl")
        self.round_trip("data.ndjson")
        self.round_trip("data.json.gz")
        self.round_trip("data.txt", fmt="json")

    def test_excel_xlsx(self):
        if not has("openpyxl"):
            self.fails("save_data", "missing_package", {"df": sample()}, name="df",
                       path=self.path("a.xlsx"), contains="openpyxl")
            return
        ns = self.round_trip("data.xlsx")
        loaded = self.ok("load_data", ns, name="b", path=self.path("out", "data.xlsx"))
        self.assertEqual(loaded["structured"]["sheet"], "Sheet1")

    def test_stata(self):
        ns = self.round_trip("data.dta")
        labelled = sample()
        labelled.attrs["variable_labels"] = {"x": "The x variable"}
        ns["lab"] = labelled
        self.ok("save_data", ns, name="lab", path=self.path("lab.dta"))
        back = self.ok("load_data", ns, name="lab2", path=self.path("lab.dta"))
        self.assertEqual(back["structured"]["variable_labels"], {"x": "The x variable"})
        self.assertEqual(ns["lab2"].attrs["variable_labels"], {"x": "The x variable"})

    def test_parquet(self):
        if has("pyarrow") or has("fastparquet"):
            self.round_trip("data.parquet")
        else:
            self.assert_parquet_missing()

    def test_parquet_missing_package_message(self):
        with hidden_modules("pyarrow", "fastparquet"):
            self.assert_parquet_missing()

    def assert_parquet_missing(self):
        ns = {"df": sample()}
        payload = self.fails("save_data", "missing_package", ns, name="df",
                             path=self.path("a.parquet"), contains=("pyarrow", "Parquet"))
        self.assertEqual(payload["install"], install_command("pyarrow"))  # this interpreter
        self.assertIn(payload["install"], payload["error"])
        self.assertFalse(os.path.exists(self.path("a.parquet")))
        with open(self.path("b.parquet"), "wb") as handle:
            handle.write(b"PAR1" + b"\0" * 20 + b"PAR1")
        payload = self.fails("load_data", "missing_package", ns, name="b",
                             path=self.path("b.parquet"), contains="pyarrow")
        self.assertIsNotNone(payload["install"])
        self.assertNotIn("b", ns)

    def test_spss(self):
        if has("pyreadstat"):
            self.round_trip("data.sav")
        else:
            self.assert_spss_missing()

    def test_spss_missing_package_message(self):
        with hidden_modules("pyreadstat"):
            self.assert_spss_missing()

    def assert_spss_missing(self):
        ns = {"df": sample()}
        self.fails("save_data", "missing_package", ns, name="df", path=self.path("a.sav"),
                   contains=("pyreadstat", "SPSS", "pip install pyreadstat"))
        with open(self.path("b.sav"), "wb") as handle:
            handle.write(b"$FL2" + b"\0" * 60)
        payload = self.fails("load_data", "missing_package", ns, name="b",
                             path=self.path("b.sav"), contains="pyreadstat")
        self.assertTrue(payload["install"].endswith("install pyreadstat"))

    def test_xls(self):
        ns = {"df": sample()}
        if PANDAS_MAJOR >= 2:
            self.fails("save_data", "bad_argument", ns, name="df", path=self.path("a.xls"),
                       contains="cannot write .xls")
        elif has("xlwt"):
            self.ok("save_data", ns, name="df", path=self.path("a.xls"))
        else:
            self.fails("save_data", "missing_package", ns, name="df", path=self.path("a.xls"),
                       contains=("xlwt", "pip install xlwt"))
        if PANDAS_MAJOR < 2:
            with hidden_modules("xlwt"):
                self.fails("save_data", "missing_package", ns, name="df",
                           path=self.path("b.xls"), contains="xlwt")

    def test_xls_reading_needs_xlrd(self):
        with open(self.path("old.xls"), "wb") as handle:
            handle.write(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504)
        with hidden_modules("xlrd"):
            payload = self.fails("load_data", "missing_package", {}, name="old",
                                 path=self.path("old.xls"), contains=("xlrd", ".xls"))
            self.assertTrue(payload["install"].endswith("install xlrd"))

    def test_xlsx_reading_needs_openpyxl(self):
        if not has("openpyxl"):
            self.skipTest("openpyxl is not installed")
        ns = {"df": sample(5)}
        self.ok("save_data", ns, name="df", path=self.path("a.xlsx"))
        with hidden_modules("openpyxl"):
            self.fails("load_data", "missing_package", ns, name="b", path=self.path("a.xlsx"),
                       contains=("openpyxl", "install openpyxl"))
            self.fails("save_data", "missing_package", ns, name="df", path=self.path("c.xlsx"),
                       contains="openpyxl")

    def test_pandas_missing(self):
        with hidden_modules("pandas"):
            self.fails("load_data", "missing_package", {}, name="d", path=__file__,
                       format="csv", contains="pandas")

    def test_series_and_index_are_written_as_columns(self):
        series = pd.Series([1.5, 2.5], index=pd.Index(["a", "b"], name="key"), name="v")
        ns = {"s": series}
        saved = self.ok("save_data", ns, name="s", path=self.path("s.csv"))["structured"]
        self.assertEqual(saved["index_columns"], ["key"])
        self.ok("load_data", ns, name="back", path=self.path("s.csv"))
        self.assertEqual(ns["back"].columns.tolist(), ["key", "v"])
        self.assertEqual(ns["back"]["v"].tolist(), [1.5, 2.5])

    def test_dates_and_categories(self):
        frame = pd.DataFrame({"when": pd.date_range("2021-03-01", periods=3,
                                                   freq=pd.Timedelta(hours=12)),
                              "grade": pd.Categorical(["a", "b", "a"])})
        ns = {"df": frame}
        self.ok("save_data", ns, name="df", path=self.path("d.csv"))
        loaded = self.ok("load_data", ns, name="b", path=self.path("d.csv"))
        self.assertIn("parse_dates", loaded["text"])  # a hint that the column holds dates
        self.ok("load_data", ns, name="b", path=self.path("d.csv"),
                options={"parse_dates": ["when"]})
        self.assertTrue((ns["b"]["when"] == frame["when"]).all())
        self.ok("save_data", ns, name="df", path=self.path("d.dta"))
        self.ok("load_data", ns, name="c", path=self.path("d.dta"))
        self.assertTrue((ns["c"]["when"] == frame["when"]).all())
        self.assertEqual(ns["c"]["grade"].astype(str).tolist(), ["a", "b", "a"])


class Reading(ToolTestCase):
    def write(self, name, data, mode="w", encoding="utf-8"):
        path = self.path(name)
        with open(path, mode, **({} if "b" in mode else {"encoding": encoding})) as handle:
            handle.write(data)
        return path

    def test_report(self):
        path = self.write("a.csv", "a,b,c\n1,2.5,x\n,3.5,\n")
        payload = self.ok("load_data", {}, path=path, name="df")
        s = payload["structured"]
        self.assertEqual(s["rows"], 2)
        self.assertEqual(s["columns"], 3)
        self.assertEqual(s["dtypes"], {"a": "float64", "b": "float64", "c": TEXT_DTYPE})
        self.assertEqual(s["missing"], {"a": 1, "b": 0, "c": 1})
        self.assertEqual(s["format"], "csv")
        self.assertIn("2 rows × 3 columns", payload["text"])

    def test_relative_and_home_paths(self):
        self.write("rel.csv", "a\n1\n")
        cwd = os.getcwd()
        os.chdir(self.tmp)
        self.addCleanup(os.chdir, cwd)
        s = self.ok("load_data", {}, path="rel.csv", name="df")["structured"]
        self.assertEqual(s["path"], os.path.join(os.path.realpath(self.tmp), "rel.csv")
                         if os.path.realpath(self.tmp) == os.getcwd() else s["path"])
        self.assertTrue(os.path.isabs(s["path"]))
        home = os.environ.get("HOME")
        os.environ["HOME"] = self.tmp
        self.addCleanup(lambda: os.environ.__setitem__("HOME", home) if home is not None
                        else os.environ.pop("HOME", None))
        s = self.ok("load_data", {}, path="~/rel.csv", name="df")["structured"]
        self.assertEqual(s["path"], os.path.join(self.tmp, "rel.csv"))

    def test_delimiter_is_detected(self):
        path = self.write("semi.csv", "a;b;c\n1;2;3\n4;5;6\n")
        payload = self.ok("load_data", {}, path=path, name="df")
        self.assertEqual(payload["structured"]["columns"], 3)
        self.assertIn("delimiter detected", payload["text"])
        path = self.write("comma.csv", "a,b\n\"x;y\",2\n")
        ns = {}
        self.ok("load_data", ns, path=path, name="df")
        self.assertEqual(ns["df"]["a"].tolist(), ["x;y"])

    def test_missing_file(self):
        self.write("sales_2024.csv", "a\n1\n")
        payload = self.fails("load_data", "not_found", {}, path=self.path("sales2024.csv"),
                             name="df", contains=("No file at", "sales_2024.csv"))
        self.assertIsNone(payload["install"])
        self.fails("load_data", "not_found", {}, path=self.path("nope", "x.csv"), name="df",
                   contains="does not exist")

    def test_bad_encoding(self):
        path = self.write("latin.csv", "name,city\nJosé,Málaga\n".encode("latin-1"), "wb")
        ns = {}
        self.fails("load_data", "bad_file", ns, path=path, name="df",
                   contains=('"encoding": "latin-1"', "UTF-8"))
        self.assertNotIn("df", ns)
        self.ok("load_data", ns, path=path, name="df", options={"encoding": "latin-1"})
        self.assertEqual(ns["df"]["city"].tolist(), ["Málaga"])

    def test_malformed_files(self):
        ns = {"df": "untouched"}
        bad_csv = self.write("bad.csv", "a,b\n1,2\n3,4,5,6\n")
        self.fails("load_data", "bad_file", ns, path=bad_csv, name="df",
                   contains=("Could not parse", "fields"))
        empty = self.write("empty.csv", "")
        self.fails("load_data", "bad_file", ns, path=empty, name="df", contains="empty")
        fake_xlsx = self.write("fake.xlsx", "a,b\n1,2\n")
        self.fails("load_data", "bad_file", ns, path=fake_xlsx, name="df",
                   contains=("not an Excel workbook", "format='csv'"))
        broken_zip = self.write("broken.xlsx", b"PK\x03\x04garbage", "wb")
        self.fails("load_data", "bad_file", ns, path=broken_zip, name="df")
        bad_json = self.write("bad.json", '{"a": [1, 2')
        self.fails("load_data", "bad_file", ns, path=bad_json, name="df")
        lines_as_json = self.write("lines.json", '{"a": 1}\n{"a": 2}\n')
        self.fails("load_data", "bad_file", ns, path=lines_as_json, name="df",
                   contains="jsonl")
        bad_dta = self.write("bad.dta", b"this is not stata at all" * 10, "wb")
        self.fails("load_data", "bad_file", ns, path=bad_dta, name="df")
        self.assertEqual(ns, {"df": "untouched"})  # nothing half-loaded

    def test_bad_arguments(self):
        path = self.write("a.csv", "a\n1\n")
        self.fails("load_data", "bad_argument", {}, path=path, name="1bad",
                   contains="identifier")
        self.fails("load_data", "bad_argument", {}, path=path, name="df", options=[1],
                   contains="options must be a JSON object")
        self.fails("load_data", "bad_argument", {}, path=path, name="df",
                   options={"seperator": ";"}, contains="seperator")
        self.fails("load_data", "bad_argument", {}, path=path, name="df",
                   options={"chunksize": 10}, contains="whole file")
        self.fails("load_data", "bad_argument", {}, path=path, name="df", format="sas7bdat",
                   contains="Unknown format")
        self.fails("load_data", "bad_argument", {}, path=self.write("a.dat", "x"), name="df",
                   contains="Cannot tell the format")
        self.fails("load_data", "bad_argument", {}, path=self.tmp, name="df", format="csv",
                   contains="folder")
        self.fails("load_data", "bad_argument", {}, path=path, name="df",
                   options={"usecols": ["zz"]})

    def test_excel_sheets(self):
        if not has("openpyxl"):
            self.skipTest("openpyxl is not installed")
        path = self.path("book.xlsx")
        with pd.ExcelWriter(path, engine="openpyxl") as writer:
            pd.DataFrame({"a": [1]}).to_excel(writer, sheet_name="first", index=False)
            pd.DataFrame({"b": [2, 3]}).to_excel(writer, sheet_name="second", index=False)
        ns = {}
        s = self.ok("load_data", ns, path=path, name="df")["structured"]
        self.assertEqual(s["sheets"], ["first", "second"])
        self.assertEqual(s["sheet"], "first")
        s = self.ok("load_data", ns, path=path, name="df",
                    options={"sheet_name": "second"})["structured"]
        self.assertEqual(s["rows"], 2)
        self.fails("load_data", "not_found", ns, path=path, name="df",
                   options={"sheet_name": "third"}, contains="'second'")
        self.fails("load_data", "bad_argument", ns, path=path, name="df",
                   options={"sheet_name": None}, contains="one sheet")

    def test_replacing_a_variable_is_reported(self):
        path = self.write("a.csv", "a\n1\n")
        ns = {"df": [1, 2]}
        s = self.ok("load_data", ns, path=path, name="df")["structured"]
        self.assertEqual(s["replaced"], "list")


class Writing(ToolTestCase):
    def test_never_overwrites_another_kind_of_file(self):
        ns = {"df": sample(5)}
        if has("openpyxl"):
            self.ok("save_data", ns, name="df", path=self.path("book.xlsx"))
            self.fails("save_data", "bad_argument", ns, name="df", path=self.path("book.xlsx"),
                       format="csv", contains="does not match")
            os.rename(self.path("book.xlsx"), self.path("book.csv"))
            self.fails("save_data", "bad_argument", ns, name="df", path=self.path("book.csv"),
                       contains=("Refusing to overwrite", "zip"))
        with open(self.path("x.parquet"), "wb") as handle:
            handle.write(b"PAR1....PAR1")
        with open(self.path("x.csv"), "wb") as handle:
            handle.write(b"PAR1....PAR1")
        self.fails("save_data", "bad_argument", ns, name="df", path=self.path("x.csv"),
                   contains=("Refusing to overwrite", "Parquet"))
        with open(self.path("img.json"), "wb") as handle:
            handle.write(b"\x89PNG\r\n\x1a\n")
        self.fails("save_data", "bad_argument", ns, name="df", path=self.path("img.json"),
                   contains="PNG")
        with open(self.path("notes.json"), "w") as handle:
            handle.write("plain text, not json")
        self.fails("save_data", "bad_argument", ns, name="df", path=self.path("notes.json"),
                   contains="delimited text")
        self.ok("save_data", ns, name="df", path=self.path("data.csv"))
        self.fails("save_data", "bad_argument", ns, name="df", path=self.path("data.csv"),
                   format="json", contains="does not match")
        self.fails("save_data", "bad_argument", ns, name="df", path=self.tmp, format="csv",
                   contains="folder")
        with open(self.path("empty.csv"), "w"):
            pass
        self.ok("save_data", ns, name="df", path=self.path("empty.csv"))

    def test_creates_folders(self):
        ns = {"df": sample(3)}
        target = self.path("a", "b", "c", "d.csv")
        s = self.ok("save_data", ns, name="df", path=target)["structured"]
        self.assertEqual(s["created_folders"], [self.path("a"), self.path("a", "b"),
                                                self.path("a", "b", "c")])
        self.assertTrue(os.path.isfile(target))
        self.assertEqual(os.listdir(self.path("a", "b", "c")), ["d.csv"])  # no temp file left

    def test_failed_write_leaves_nothing(self):
        frame = pd.DataFrame({1: [1.0], 2: [2.0]})  # Parquet wants string column names
        ns = {"df": frame}
        if has("pyarrow"):
            self.fails("save_data", "bad_argument", ns, name="df",
                       path=self.path("new", "x.parquet"), contains="string column names")
            self.assertFalse(os.path.exists(self.path("new")))
        tz = pd.DataFrame({"t": pd.date_range("2020", periods=2, tz="UTC")})
        if has("openpyxl"):
            self.fails("save_data", "bad_argument", {"tz": tz}, name="tz",
                       path=self.path("new2", "tz.xlsx"))
            self.assertFalse(os.path.exists(self.path("new2")))

    def test_not_a_frame(self):
        self.fails("save_data", "bad_argument", {"x": [1, 2]}, name="x",
                   path=self.path("x.csv"), contains="DataFrame")
        self.fails("save_data", "not_found", {}, name="x", path=self.path("x.csv"))

    def test_json_is_exact_and_strict(self):
        frame = pd.DataFrame({"v": [0.1 + 0.2, np.nan, 1e-320, np.inf]})
        ns = {"df": frame}
        self.ok("save_data", ns, name="df", path=self.path("v.json"))
        import json
        with open(self.path("v.json"), encoding="utf-8") as handle:
            data = json.load(handle)  # strict JSON: no NaN/Infinity tokens
        self.assertEqual(data, [{"v": 0.30000000000000004}, {"v": None}, {"v": 1e-320},
                                {"v": None}])


if __name__ == "__main__":
    unittest.main()
