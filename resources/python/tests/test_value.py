"""value(expression): every kind of Python value travels as strict, faithful JSON."""

import collections
import dataclasses
import datetime
import decimal
import enum
import fractions
import math
import unittest

import numpy as np
import pandas as pd

from tests.support import ToolTestCase, call


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass
class Point:
    x: float
    y: float


Pair = collections.namedtuple("Pair", "left right")


class ValueTransport(ToolTestCase):
    def value(self, obj, **extra):
        ns = {"obj": obj}
        payload = self.ok("value", ns, expression="obj", **extra)
        structured = payload["structured"]
        # The JSON says all the text says (some clients hand the model nothing else): shape too.
        self.assertEqual(set(structured), {"value", "type", "shape", "notes"})
        return structured["value"], structured["notes"], structured["type"]

    def test_the_shape_the_text_names_is_in_the_json(self):
        payload = self.ok("value", {"rows": [[1, 2, 3], [4, 5, 6]]}, expression="rows")
        self.assertEqual(payload["structured"]["shape"], [2])
        self.assertIn("(2)", payload["text"])
        self.assertIsNone(self.ok("value", {"n": 7}, expression="n")["structured"]["shape"])

    def test_scalars(self):
        self.assertEqual(self.value(None)[0], None)
        self.assertEqual(self.value(True)[0], True)
        self.assertEqual(self.value(42)[0], 42)
        self.assertEqual(self.value("héllo")[0], "héllo")
        value, notes, kind = self.value(0.1)
        self.assertEqual(value, 0.1)
        self.assertEqual(kind, "float")
        self.assertEqual(notes, [])

    def test_floats_round_trip_exactly(self):
        rng = np.random.default_rng(7)
        numbers = (rng.standard_normal(500) * 10.0 ** rng.integers(-300, 300, 500)).tolist()
        numbers += [5e-324, 1.7976931348623157e308, -0.0, 1 / 3]
        value, notes, _ = self.value(numbers, max_items=1000)
        self.assertEqual(len(value), len(numbers))
        for a, b in zip(value, numbers):
            self.assertEqual(a, b)
            self.assertEqual(math.copysign(1, a), math.copysign(1, b))

    def test_nan_and_infinities_become_null_with_notes(self):
        value, notes, _ = self.value([1.0, float("nan"), float("inf"), float("-inf"),
                                      {"a": float("nan")}])
        self.assertEqual(value, [1.0, None, None, None, {"a": None}])
        joined = " ".join(notes)
        self.assertIn("NaN", joined)
        self.assertIn("$[1]", joined)
        self.assertIn("$[4].a", joined)
        self.assertIn("inf value became null", joined)
        self.assertIn("$[2]", joined)
        self.assertIn("-inf", joined)
        self.assertIn("$[3]", joined)

    def test_big_integers_become_strings(self):
        value, notes, _ = self.value([2 ** 53, 2 ** 53 + 1, -(2 ** 64)])
        self.assertEqual(value, [2 ** 53, "9007199254740993", "-18446744073709551616"])
        self.assertTrue(any("2**53" in n for n in notes))

    def test_numpy_scalars(self):
        value, notes, _ = self.value([np.int64(7), np.float32(0.1), np.float64(np.nan),
                                      np.bool_(True), np.uint8(255), np.float16(1.5),
                                      np.complex128(1 + 2j), np.str_("s"),
                                      np.datetime64("2020-01-02T03:04:05"),
                                      np.timedelta64(90, "s"), np.datetime64("NaT")])
        self.assertEqual(value[0], 7)
        self.assertEqual(value[1], float(np.float32(0.1)))  # the float32's exact value
        self.assertIsNone(value[2])
        self.assertEqual(value[3], True)
        self.assertEqual(value[4], 255)
        self.assertEqual(value[5], 1.5)
        self.assertEqual(value[6], {"real": 1.0, "imag": 2.0})
        self.assertEqual(value[7], "s")
        self.assertEqual(value[8], "2020-01-02T03:04:05")
        self.assertEqual(value[9], "P0DT0H1M30S")
        self.assertIsNone(value[10])
        self.assertTrue(any("NaN" in n for n in notes))

    def test_numpy_arrays(self):
        value, notes, kind = self.value(np.array([[1.5, np.nan], [np.inf, 4.0]]))
        self.assertEqual(kind, "numpy.ndarray")
        self.assertEqual(value, [[1.5, None], [None, 4.0]])
        self.assertIn("$[0][1]", " ".join(notes))
        self.assertIn("$[1][0]", " ".join(notes))
        self.assertEqual(self.value(np.arange(6, dtype=np.int32).reshape(2, 3))[0],
                         [[0, 1, 2], [3, 4, 5]])
        self.assertEqual(self.value(np.array([True, False]))[0], [True, False])
        self.assertEqual(self.value(np.array(["a", "b"]))[0], ["a", "b"])
        self.assertEqual(self.value(np.array([1 + 1j]))[0], [{"real": 1.0, "imag": 1.0}])
        self.assertEqual(self.value(np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"))[0],
                         ["2020-01-01", None])
        self.assertEqual(self.value(np.float64(2.5) * np.ones(()))[0], 2.5)

    def test_big_array_is_capped_with_a_note(self):
        value, notes, _ = self.value(np.zeros(5000))
        self.assertEqual(len(value), 1000)
        self.assertTrue(any("cut" in n and "5000" in n for n in notes))
        value, notes, _ = self.value(np.zeros(5000), max_items=5000)
        self.assertEqual(len(value), 5000)

    def test_dataframe(self):
        frame = pd.DataFrame({
            "x": [1.25, np.nan, 3.0],
            "n": [1, 2, 3],
            "s": ["a", None, "c"],
            "b": [True, False, True],
            "t": pd.to_datetime(["2021-01-01", None, "2021-01-03"]),
            "c": pd.Categorical(["lo", "hi", "lo"]),
        }, index=pd.Index(["r1", "r2", "r3"], name="row"))
        value, notes, kind = self.value(frame)
        self.assertEqual(kind, "pandas.DataFrame")
        self.assertEqual(value["columns"], ["x", "n", "s", "b", "t", "c"])
        self.assertEqual(value["index"], ["r1", "r2", "r3"])
        self.assertEqual(value["index_names"], ["row"])
        self.assertEqual(value["data"][0], [1.25, 1, "a", True, "2021-01-01", "lo"])
        self.assertEqual(value["data"][1], [None, 2, None, False, None, "hi"])
        self.assertEqual(value["dtypes"][:4], ["float64", "int64", str(frame["s"].dtype), "bool"])
        self.assertIn("column 'x'", " ".join(notes))

    def test_dataframe_rows_are_capped(self):
        frame = pd.DataFrame({"a": np.arange(3000.0)})
        value, notes, _ = self.value(frame)
        self.assertEqual(len(value["data"]), 1000)
        self.assertTrue(any("1000 of 3000 rows" in n for n in notes))

    def test_series_index_timestamp_timedelta_categorical(self):
        series = pd.Series([1.0, np.inf], index=pd.date_range("2020-01-01", periods=2),
                           name="s")
        value, notes, _ = self.value(series)
        self.assertEqual(value["name"], "s")
        self.assertEqual(value["index"], ["2020-01-01", "2020-01-02"])
        self.assertEqual(value["values"], [1.0, None])
        self.assertTrue(any("inf" in n for n in notes))
        self.assertEqual(self.value(pd.Index([3, 1, 2]))[0], [3, 1, 2])
        self.assertEqual(self.value(pd.Timestamp("2020-05-06 07:08:09.123456789"))[0],
                         "2020-05-06T07:08:09.123456789")
        self.assertEqual(self.value(pd.Timestamp("2020-05-06", tz="UTC"))[0],
                         "2020-05-06T00:00:00+00:00")
        self.assertEqual(self.value(pd.Timedelta("1 days 02:03:04.000000005"))[0],
                         "P1DT2H3M4.000000005S")
        self.assertEqual(self.value(pd.Timedelta(seconds=-1))[0], "-P0DT0H0M1S")
        self.assertIsNone(self.value(pd.NaT)[0])
        self.assertIsNone(self.value(pd.NA)[0])
        cat = self.value(pd.Categorical(["b", "a", "b"], categories=["b", "a"], ordered=True))[0]
        self.assertEqual(cat, {"categories": ["b", "a"], "ordered": True,
                               "values": ["b", "a", "b"]})
        self.assertEqual(self.value(pd.Series([1, None], dtype="Int64"))[0]["values"], [1, None])
        td = self.value(pd.Series(pd.to_timedelta(["1h", None])))[0]
        self.assertEqual(td["values"], ["P0DT1H0M0S", None])
        mi = self.value(pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]))[0]
        self.assertEqual(mi, [["a", 1], ["b", 2]])

    def test_standard_library_types(self):
        self.assertEqual(self.value(datetime.datetime(2020, 1, 2, 3, 4, 5, 6))[0],
                         "2020-01-02T03:04:05.000006")
        self.assertEqual(self.value(datetime.date(2020, 1, 2))[0], "2020-01-02")
        self.assertEqual(self.value(datetime.time(13, 14))[0], "13:14:00")
        self.assertEqual(self.value(datetime.timedelta(days=-1, seconds=86399))[0],
                         "-P0DT0H0M1S")
        self.assertEqual(self.value(datetime.timedelta(days=2, microseconds=5))[0],
                         "P2DT0H0M0.000005S")
        self.assertEqual(self.value(decimal.Decimal("0.1"))[0], 0.1)
        value, notes, _ = self.value(decimal.Decimal("0.12345678901234567890123"))
        self.assertEqual(value, "0.12345678901234567890123")
        self.assertTrue(notes)
        self.assertIsNone(self.value(decimal.Decimal("NaN"))[0])
        self.assertEqual(self.value(fractions.Fraction(1, 4))[0], 0.25)
        self.assertEqual(self.value(fractions.Fraction(1, 3))[0], "1/3")
        self.assertEqual(self.value(3 - 4j)[0], {"real": 3.0, "imag": -4.0})
        self.assertEqual(self.value(b"hi\x00")[0], {"base64": "aGkA", "utf8": "hi\x00"})
        self.assertEqual(self.value(b"\xff")[0], {"base64": "/w=="})
        self.assertEqual(self.value({3, 1, 2})[0], [1, 2, 3])
        self.assertEqual(self.value(frozenset(["b", "a"]))[0], ["a", "b"])
        self.assertEqual(self.value((1, "a"))[0], [1, "a"])
        self.assertEqual(self.value(range(3))[0], [0, 1, 2])
        self.assertEqual(self.value(Color.RED)[0], "Color.RED")
        self.assertEqual(self.value(Point(1.0, 2.0))[0], {"x": 1.0, "y": 2.0})
        self.assertEqual(self.value(Pair(1, 2))[0], {"left": 1, "right": 2})

    def test_dict_keys(self):
        value, notes, _ = self.value({1: "a", None: "b", 2.5: "c"})
        self.assertEqual(value, {"1": "a", "null": "b", "2.5": "c"})
        self.assertTrue(any("keys" in n for n in notes))
        value, notes, _ = self.value({1: "int", "1": "str"})
        self.assertEqual(value, [[1, "int"], ["1", "str"]])

    def test_cycles_depth_and_size_are_bounded(self):
        loop = [1]
        loop.append(loop)
        value, notes, _ = self.value(loop)
        self.assertEqual(value, [1, "<cycle: list>"])
        self.assertTrue(any("cycle" in n for n in notes))
        deep = []
        node = deep
        for _ in range(100):
            node.append([])
            node = node[0]
        value, notes, _ = self.value(deep)
        self.assertTrue(any("deeper than" in n for n in notes))
        value, notes, _ = self.value(list(range(10 ** 5)))
        self.assertEqual(len(value), 1000)
        self.assertTrue(any("first 1000 of 100000" in n for n in notes))
        value, notes, _ = self.value("x" * 50000)
        self.assertEqual(len(value), 20000)
        self.assertTrue(notes)

    def test_unknown_objects_are_given_as_repr(self):
        class Thing:
            def __repr__(self):
                return "<Thing>"

        value, notes, kind = self.value(Thing())
        self.assertEqual(value, "<Thing>")
        self.assertTrue(kind.endswith("Thing"))
        self.assertTrue(any("repr" in n for n in notes))

    def test_text_is_bounded(self):
        payload = self.ok("value", {"x": list(range(1000))}, expression="x")
        self.assertLess(len(payload["text"]), 4000)

    def test_expression_errors(self):
        self.fails("value", "not_found", {}, expression="undefined_name",
                   contains="undefined_name")
        self.fails("value", "python_error", {}, expression="1/0", contains="ZeroDivisionError")
        self.fails("value", "bad_argument", {}, expression="x = 1", contains="statement")
        self.fails("value", "bad_argument", {}, expression="(", contains="not valid Python")
        self.fails("value", "bad_argument", {}, expression="")

    def test_no_names_left_behind(self):
        ns = {"a": 1}
        self.ok("value", ns, expression="a + 1")
        self.assertEqual(set(ns), {"a"})
        self.assertEqual(call("value", ns, expression="(b := 5)")["structured"]["value"], 5)
        self.assertEqual(ns["b"], 5)  # a walrus binds because the user asked for it


if __name__ == "__main__":
    unittest.main()
