"""save_figure: PNG, SVG and PDF; which figure; clear answers when there is none."""

import os
import unittest

from tests.support import ToolTestCase, has, hidden_modules, unimported


@unittest.skipUnless(has("matplotlib"), "matplotlib is not installed")
class SaveFigure(ToolTestCase):
    def setUp(self):
        super().setUp()
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt = plt
        plt.close("all")
        self.addCleanup(plt.close, "all")

    def draw(self):
        fig, ax = self.plt.subplots(figsize=(4, 3), dpi=50)
        ax.plot([1, 2, 3], [3, 1, 2])
        return fig, ax

    def test_formats(self):
        self.draw()
        magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
        for ext, head in magic.items():
            path = self.path("figs", "plot." + ext)
            s = self.ok("save_figure", {}, path=path)["structured"]
            self.assertEqual(s["path"], path)
            self.assertEqual(s["format"], ext)
            self.assertEqual(s["bytes"], os.path.getsize(path))
            self.assertGreater(s["bytes"], 100)
            with open(path, "rb") as handle:
                self.assertTrue(handle.read(5).startswith(head))
        self.assertEqual(sorted(os.listdir(self.path("figs"))),
                         ["plot.pdf", "plot.png", "plot.svg"])

    def test_dpi(self):
        self.draw()
        low = self.ok("save_figure", {}, path=self.path("a.png"), dpi=50)["structured"]
        high = self.ok("save_figure", {}, path=self.path("b.png"), dpi=200)["structured"]
        self.assertEqual(high["dpi"], 200.0)
        self.assertGreater(high["pixels"][0], 3 * low["pixels"][0])
        self.fails("save_figure", "bad_argument", {}, path=self.path("c.png"), dpi=-1)

    def test_refuses_other_formats_and_kinds(self):
        self.draw()
        self.fails("save_figure", "bad_argument", {}, path=self.path("a.jpg"),
                   contains=("PNG, SVG or PDF", ".jpg"))
        self.fails("save_figure", "bad_argument", {}, path=self.path("noext"))
        with open(self.path("table.png"), "w") as handle:
            handle.write("a,b\n1,2\n")
        self.fails("save_figure", "bad_argument", {}, path=self.path("table.png"),
                   contains="Refusing to overwrite")
        self.ok("save_figure", {}, path=self.path("ok.png"))
        again = self.ok("save_figure", {}, path=self.path("ok.png"))["structured"]
        self.assertTrue(again["replaced"])

    def test_no_figure_open(self):
        self.fails("save_figure", "not_found", {}, path=self.path("a.png"),
                   contains="No figure is open")
        self.assertFalse(os.path.exists(self.path("a.png")))

    def test_figure_kept_in_a_variable(self):
        fig, ax = self.draw()
        self.plt.close("all")  # as the inline backend does after a cell
        s = self.ok("save_figure", {"fig": fig}, path=self.path("a.png"))["structured"]
        self.assertIn("fig", s["source"])
        s = self.ok("save_figure", {"ax": ax, "other": self.draw()[0]}, path=self.path("b.png"),
                    figure="ax")["structured"]
        self.assertIn("ax", s["source"])
        self.plt.close("all")
        fig2, _ = self.draw()
        self.plt.close("all")
        self.fails("save_figure", "not_found", {"f1": fig, "f2": fig2}, path=self.path("c.png"),
                   contains="figure=<name>")
        self.fails("save_figure", "bad_argument", {"n": 1}, path=self.path("d.png"), figure="n")

    def test_matplotlib_not_imported(self):
        with unimported("matplotlib"):
            self.fails("save_figure", "not_found", {}, path=self.path("a.png"),
                       contains="has not been imported")
            self.assertFalse(any(k.startswith("matplotlib") for k in __import__("sys").modules))


class MatplotlibMissing(ToolTestCase):
    def test_missing_package(self):
        with hidden_modules("matplotlib"):
            payload = self.fails("save_figure", "missing_package", {}, path=self.path("a.png"),
                                 contains="matplotlib")
            self.assertTrue(payload["install"].endswith("install matplotlib"))


if __name__ == "__main__":
    unittest.main()
