"""data_page and data_summary: the panel's data viewer."""

import unittest

import numpy as np
import pandas as pd

from python_session import data_view
from tests.support import ToolTestCase, hidden_modules


class StrRaises:
    def __str__(self):
        raise ValueError("cannot show")


class StrHangs:
    def __str__(self):
        while True:
            pass


def frame(rows=50):
    rng = np.random.default_rng(7)
    df = pd.DataFrame({
        "price": rng.normal(10, 2, rows).round(3),
        "qty": rng.integers(0, 5, rows),
        # object, not pandas 3's str dtype (which stores None as NaN)
        "region": pd.Series(rng.choice(["North", "south", "East"], rows), dtype=object),
        "when": pd.date_range("2021-01-01", periods=rows, freq="D"),
    })
    df.loc[3, "price"] = np.nan
    df.loc[4, "when"] = pd.NaT
    df.loc[5, "region"] = None
    return df


def page(test, ns, expression="df", **args):
    return test.ok("data_page", ns, expression=expression, **args)["structured"]


def index_of(structured):
    return [int(r[0]) for r in structured["index"]]


class Paging(ToolTestCase):
    def setUp(self):
        super().setUp()
        data_view.forget_views()

    def test_a_window_of_rows_with_the_contract_fields(self):
        df = frame()
        got = page(self, {"df": df}, offset=10, limit=5)
        self.assertEqual(got["kind"], "DataFrame")
        self.assertEqual((got["shape"], got["total_rows"], got["filtered_rows"], got["offset"]),
                         ([50, 4], 50, 50, 10))
        self.assertEqual(got["columns"], [
            {"name": name, "dtype": str(df.dtypes.iloc[i]), "position": i}
            for i, name in enumerate(["price", "qty", "region", "when"])])
        self.assertEqual(got["total_columns"], 4)
        self.assertEqual(got["index_names"], [""])
        self.assertEqual(index_of(got), [10, 11, 12, 13, 14])
        self.assertEqual(got["rows"][0], [str(df.price[10]), str(df.qty[10]), df.region[10],
                                          "2021-01-11 00:00:00"])
        past = page(self, {"df": df}, offset=60, limit=5)
        self.assertEqual((past["rows"], past["index"]), ([], []))

    def test_missing_values_are_null_and_say_which(self):
        df = frame()
        df["nullable"] = pd.array([1, None] * 25, dtype="Int64")
        df["mixed"] = [None, float("nan"), pd.NA, pd.NaT, "x"] * 10
        got = page(self, {"df": df}, limit=6)
        marks = {(r, c): kind for r, c, kind in got["missing"]}
        self.assertEqual(got["rows"][3][0], None)
        self.assertEqual(marks[(3, 0)], "NaN")
        self.assertEqual(marks[(4, 3)], "NaT")
        self.assertEqual(marks[(5, 2)], "None")
        self.assertEqual(marks[(1, 4)], "NA")
        self.assertEqual([marks.get((r, 5)) for r in range(5)], ["None", "NaN", "NA", "NaT", None])
        self.assertEqual(got["rows"][4][5], "x")

    def test_sort_one_column_each_way_with_missing_last(self):
        df = frame()
        ns = {"df": df}
        up = page(self, ns, sort=[{"column": "price", "ascending": True}], limit=50)
        expected = df.sort_values("price", kind="stable", na_position="last").index.tolist()
        self.assertEqual(index_of(up), expected)
        down = page(self, ns, sort=[{"column": "price", "ascending": False}], limit=50)
        expected = df.sort_values("price", ascending=False, kind="stable",
                                  na_position="last").index.tolist()
        self.assertEqual(index_of(down), expected)
        self.assertEqual(index_of(down)[-1], 3)
        for column in ("region", "when", "qty"):
            got = page(self, ns, sort=[{"column": column, "ascending": False}], limit=50)
            self.assertEqual(index_of(got), df.sort_values(
                column, ascending=False, kind="stable", na_position="last").index.tolist(), column)

    def test_sort_by_several_columns_matches_pandas(self):
        df = frame(300)
        got = page(self, {"df": df}, limit=300, sort=[{"column": "qty", "ascending": True},
                                                      {"column": "region", "ascending": False},
                                                      {"column": "price", "ascending": True}])
        expected = df.sort_values(["qty", "region", "price"], ascending=[True, False, True],
                                  kind="stable", na_position="last").index.tolist()
        self.assertEqual(index_of(got), expected)

    def test_a_column_mixing_types_sorts_as_text_with_a_note(self):
        df = pd.DataFrame({"m": [3, "b", 1.5, None, "a"]})
        got = page(self, {"df": df}, sort=[{"column": "m", "ascending": True}])
        self.assertEqual([r[0] for r in got["rows"]], ["1.5", "3", "a", "b", None])
        self.assertTrue(any("as text" in n for n in got["notes"]))

    def test_filter_one_column_or_the_visible_ones_ignoring_case(self):
        df = frame()
        ns = {"df": df}
        got = page(self, ns, filter={"text": "NORTH", "column": "region"}, limit=50)
        expected = df.index[df.region.str.lower().eq("north").fillna(False)].tolist()
        self.assertEqual(index_of(got), expected)
        self.assertEqual((got["filtered_rows"], got["total_rows"]), (len(expected), 50))
        anywhere = page(self, ns, filter={"text": "2021-01-1", "column": None}, limit=50)
        self.assertEqual(index_of(anywhere), list(range(9, 19)))
        # Only the columns in view are searched when no column is named.
        hidden = page(self, ns, filter={"text": "2021-01-1", "column": None},
                      columns={"start": 0, "count": 3})
        self.assertEqual(hidden["filtered_rows"], 0)
        numbers = page(self, ns, filter={"text": str(df.price[7]), "column": None})
        self.assertIn(7, index_of(numbers))
        # A missing value never matches, even a filter for "nan" or "none".
        self.assertNotIn(3, index_of(page(self, ns, filter={"text": "nan", "column": "price"})))
        self.assertNotIn(5, index_of(page(self, ns, filter={"text": "none", "column": None})))

    def test_filter_and_sort_together_and_later_pages_come_from_the_cache(self):
        df = frame(400)
        ns = {"df": df}
        spec = dict(sort=[{"column": "price", "ascending": False}],
                    filter={"text": "east", "column": "region"})
        first = page(self, ns, limit=20, **spec)
        cached = len(data_view._orders)
        second = page(self, ns, offset=20, limit=20, **spec)
        self.assertEqual(len(data_view._orders), cached, "the second page computed nothing new")
        expected = df[df.region.eq("East")].sort_values(
            "price", ascending=False, kind="stable", na_position="last").index.tolist()
        self.assertEqual(index_of(first) + index_of(second), expected[:40])
        self.assertEqual(first["filtered_rows"], len(expected))

    def test_the_cache_follows_the_object_not_the_name(self):
        ns = {"df": pd.DataFrame({"x": [3, 1, 2]})}
        spec = {"sort": [{"column": "x", "ascending": True}]}
        self.assertEqual(index_of(page(self, ns, **spec)), [1, 2, 0])
        ns["df"] = pd.DataFrame({"x": [1, 3, 2]})  # same name and shape, another object
        self.assertEqual(index_of(page(self, ns, **spec)), [0, 2, 1])
        self.assertLessEqual(len(data_view._orders), data_view.CACHE_ENTRIES)
        for i in range(10):
            page(self, {"df": pd.DataFrame({"x": range(i + 2)})}, **spec)
        self.assertLessEqual(len(data_view._orders), data_view.CACHE_ENTRIES)

    def test_a_cell_run_since_drops_the_cached_orders(self):
        df = pd.DataFrame({"x": [3, 1, 2]})
        spec = {"sort": [{"column": "x", "ascending": True}]}
        saved = data_view._generation
        try:
            data_view._generation = lambda: 7
            page(self, {"df": df}, **spec)
            self.assertEqual({key[3] for key in data_view._orders}, {7})
            df.loc[0, "x"] = 0  # changed in place by the next cell: same id, same shape
            data_view._generation = lambda: 8
            self.assertEqual(index_of(page(self, {"df": df}, **spec)), [0, 1, 2])
            self.assertEqual({key[3] for key in data_view._orders}, {8})
        finally:
            data_view._generation = saved

    def test_multiindex_rows_and_columns(self):
        rows = pd.MultiIndex.from_product([["a", "b"], [1, 2]], names=["letter", None])
        cols = pd.MultiIndex.from_tuples([("x", "one"), ("x", "two"), ("y", "one")])
        df = pd.DataFrame(np.arange(12).reshape(4, 3), index=rows, columns=cols)
        got = page(self, {"df": df}, sort=[{"column": "x / two", "ascending": False}])
        self.assertEqual([c["name"] for c in got["columns"]], ["x / one", "x / two", "y / one"])
        self.assertEqual(got["index_names"], ["letter", ""])
        self.assertEqual(got["index"], [["b", "2"], ["b", "1"], ["a", "2"], ["a", "1"]])
        self.assertEqual(got["rows"][0], ["9", "10", "11"])

    def test_categoricals_datetimes_with_time_zones_and_html_names(self):
        df = pd.DataFrame({
            "<script>alert(1)</script>": pd.Categorical(["lo", "hi", None, "lo"],
                                                        categories=["lo", "hi"], ordered=True),
            "at": pd.date_range("2022-03-01", periods=4, freq="h", tz="Europe/Paris"),
            "span": pd.to_timedelta([1, 2, None, 4], unit="s"),
        })
        ns = {"df": df}
        got = page(self, ns, sort=[{"column": "<script>alert(1)</script>", "ascending": False}])
        self.assertEqual(got["columns"][0]["name"], "<script>alert(1)</script>")
        self.assertEqual(got["columns"][0]["dtype"], "category")
        self.assertEqual([r[0] for r in got["rows"]], ["hi", "lo", "lo", None])
        self.assertEqual(got["rows"][0][1], "2022-03-01 01:00:00+01:00")
        self.assertEqual(got["rows"][3][2], None)
        found = page(self, ns, filter={"text": "01:00:00+01", "column": "at"})
        self.assertEqual(index_of(found), [1])

    def test_a_wide_frame_sends_the_column_window_asked_for(self):
        df = pd.DataFrame(np.arange(3 * 500).reshape(3, 500),
                          columns=["c%03d" % i for i in range(500)])
        default = page(self, {"df": df})
        self.assertEqual(len(default["columns"]), data_view.DEFAULT_COLUMNS)
        got = page(self, {"df": df}, columns={"start": 480, "count": 50})
        self.assertEqual([c["position"] for c in got["columns"]], list(range(480, 500)))
        self.assertEqual(got["total_columns"], 500)
        self.assertEqual(got["rows"][1][0], str(500 + 480))
        self.assertEqual(len(got["rows"][0]), 20)

    def test_long_strings_and_objects_whose_str_raises_or_hangs(self):
        df = pd.DataFrame({"v": ["é" * 1000, StrRaises(), StrHangs(), {"k": [1, 2]}]})
        got = page(self, {"df": df})
        cells = [r[0] for r in got["rows"]]
        self.assertEqual(len(cells[0]), 200)
        self.assertTrue(cells[0].endswith("…"))
        self.assertIn("str() raised ValueError: cannot show", cells[1])
        self.assertIn("took longer", cells[2])
        self.assertEqual(cells[3], "{'k': [1, 2]}")

    def test_series_arrays_lists_tuples_and_dicts(self):
        ns = {"s": pd.Series([3, 1], index=pd.Index(["x", "y"], name="key"), name="n"),
              "flat": np.array([5.0, np.nan, 1.0]), "grid": np.arange(6).reshape(2, 3),
              "cube": np.zeros((2, 2, 2)),
              "items": [3, None, "b", 1.5], "pair": ("a", "b"),
              "mapping": {"b": 2, "a": float("nan"), "c": [1]}}
        s = page(self, ns, "s", sort=[{"column": "n", "ascending": True}])
        self.assertEqual((s["kind"], s["shape"], s["index_names"], s["index"], s["rows"]),
                         ("Series", [2], ["key"], [["y"], ["x"]], [["1"], ["3"]]))
        flat = page(self, ns, "flat", sort=[{"column": "value", "ascending": False}])
        self.assertEqual((flat["kind"], flat["rows"]), ("ndarray", [["5.0"], ["1.0"], [None]]))
        grid = page(self, ns, "grid")
        self.assertEqual(([c["name"] for c in grid["columns"]], grid["rows"][1]),
                         (["0", "1", "2"], ["3", "4", "5"]))
        self.fails("data_page", "bad_argument", ns, expression="cube", contains="two dimensions")
        items = page(self, ns, "items", filter={"text": "B", "column": None})
        self.assertEqual((items["kind"], items["rows"], items["index"]), ("list", [["b"]], [["2"]]))
        self.assertEqual(page(self, ns, "pair")["kind"], "tuple")
        mapping = page(self, ns, "mapping", sort=[{"column": "key", "ascending": True}])
        self.assertEqual([c["name"] for c in mapping["columns"]], ["key", "value"])
        self.assertEqual(mapping["rows"], [["a", None], ["b", "2"], ["c", "[1]"]])
        self.assertEqual(mapping["missing"], [[0, 1, "NaN"]])

    def test_paths_are_resolved_and_calls_refused(self):
        class Holder:
            data = pd.DataFrame({"x": [1, 2]})
        ns = {"h": Holder(), "d": {"inner": [1, 2, 3]}, "df": frame()}
        self.assertEqual(page(self, ns, "h.data")["shape"], [2, 1])
        self.assertEqual(page(self, ns, 'd["inner"]')["total_rows"], 3)
        self.assertEqual(page(self, ns, 'df["region"]')["kind"], "Series")
        self.fails("data_page", "bad_argument", ns, expression="df.head()", contains="calls")
        self.fails("data_page", "not_found", ns, expression="dff", contains="df")
        self.fails("data_page", "bad_argument", {"n": 5}, expression="n", contains="int")

    def test_arguments_are_checked(self):
        ns = {"df": frame()}
        self.fails("data_page", "bad_argument", ns, expression="df", limit=501)
        self.fails("data_page", "bad_argument", ns, expression="df", offset=-1)
        self.fails("data_page", "bad_argument", ns, expression="df",
                   sort=[{"column": "prise", "ascending": True}], contains="'price'")
        self.fails("data_page", "bad_argument", ns, expression="df",
                   filter={"text": "x", "column": "nope"})
        self.fails("data_page", "bad_argument", ns, expression="df",
                   columns={"start": 0, "count": 1000})

    def test_without_pandas_lists_still_open_and_arrays_say_what_to_install(self):
        ns = {"items": [2, 1], "arr": np.array([1, 2])}
        with hidden_modules("pandas"):
            got = page(self, ns, "items", sort=[{"column": "value", "ascending": True}])
            self.assertEqual(got["rows"], [["1"], ["2"]])
            payload = self.fails("data_page", "missing_package", ns, expression="arr",
                                 contains="pandas")
            self.assertIn("pip install pandas", payload["install"])


class Summary(ToolTestCase):
    def test_per_column_figures(self):
        df = frame()
        df["lists"] = [[i] for i in range(50)]
        got = self.ok("data_summary", {"df": df}, expression="df")["structured"]
        by_name = {c["name"]: c for c in got["columns"]}
        price = by_name["price"]
        self.assertEqual((price["dtype"], price["missing"]), ("float64", 1))
        self.assertAlmostEqual(price["mean"], df.price.mean())
        self.assertEqual((price["min"], price["max"]), (str(df.price.min()), str(df.price.max())))
        self.assertEqual(price["distinct"], df.price.nunique())
        region = by_name["region"]
        self.assertEqual((region["missing"], region["min"], region["max"], region["mean"],
                          region["distinct"]), (1, "East", "south", None, 3))
        when = by_name["when"]
        self.assertEqual((when["min"], when["mean"]), ("2021-01-01 00:00:00", None))
        self.assertIsNone(by_name["lists"]["distinct"])
        self.assertTrue(all(c["error"] is None for c in got["columns"]))

    def test_some_columns_and_plain_lists(self):
        df = frame()
        got = self.ok("data_summary", {"df": df}, expression="df",
                      columns=["qty"])["structured"]["columns"]
        self.assertEqual([c["name"] for c in got], ["qty"])
        listed = self.ok("data_summary", {"v": [1, 2, None, 4]},
                         expression="v")["structured"]["columns"][0]
        self.assertEqual((listed["missing"], listed["min"], listed["max"], listed["mean"],
                          listed["distinct"]), (1, "1", "4", 7 / 3, 3))
        self.fails("data_summary", "bad_argument", {"df": df}, expression="df", columns=["nope"])


if __name__ == "__main__":
    unittest.main()
