"""python_session_common: the memory cap, figures and scrubbing that ipykernel kernels
(kernel_startup.py) and the built-in worker share.

The memory cap and the figure hooks change the process they run in for good (a resource limit,
matplotlib's close and show functions), so those run in a fresh interpreter of their own, the
one running these tests, and report back as JSON.
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import python_session_common as common

RESOURCES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAIT = 60.0  # far above what a step needs: only a failure reaches it


def has(module):
    return subprocess.run([sys.executable, "-c", "import " + module], stderr=subprocess.DEVNULL).returncode == 0


def run_python(code, env=None):
    """Runs ``code`` in a fresh interpreter beside python_session_common; its last stdout line, as JSON."""
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    environment.pop("PYTHON_SESSION_MEMORY_LIMIT", None)
    environment.update(env or {})
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=RESOURCES, env=environment,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=WAIT)
    if run.returncode != 0:
        raise AssertionError("the child failed (%d):\n%s%s" % (run.returncode, run.stdout.decode(), run.stderr.decode()))
    return json.loads(run.stdout.decode().strip().splitlines()[-1]), run.stderr.decode()


class Scrub(unittest.TestCase):
    def test_text_utf8_can_carry_comes_back_as_the_same_object(self):
        text = "héllo ✓ \U0001f600"
        self.assertIs(common.scrub(text), text)

    def test_a_lone_surrogate_becomes_a_backslash_escape(self):
        self.assertEqual(common.scrub("a\ud800b"), "a\\ud800b")
        common.scrub("a\ud800b").encode("utf-8")

    def test_dict_keys_and_values_lists_and_tuples_are_walked(self):
        value = {"k\udfff": ["x\ud800", ("y\udc00", 1)], "n": None, "f": 1.5}
        self.assertEqual(common.scrub(value), {"k\\udfff": ["x\\ud800", ["y\\udc00", 1]], "n": None, "f": 1.5})

    def test_nan_and_infinities_stay_unless_finite_is_asked_for(self):
        nan, inf = float("nan"), float("inf")
        kept = common.scrub({"a": [nan, inf, -inf, 2.0]})["a"]
        self.assertTrue(kept[0] != kept[0])
        self.assertEqual(kept[1:], [inf, -inf, 2.0])
        self.assertEqual(common.scrub({"a": [nan, inf, -inf, 2.0], "t": "\ud800"}, finite=True),
                         {"a": [None, None, None, 2.0], "t": "\\ud800"})
        json.dumps(common.scrub({"a": (nan, {"b": inf})}, finite=True), allow_nan=False)


class AfterImport(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        sys.path.insert(0, self.folder)
        self.addCleanup(sys.path.remove, self.folder)

    def module(self, name, source="VALUE = 1\n"):
        with open(os.path.join(self.folder, name + ".py"), "w") as file:
            file.write(source)
        self.addCleanup(sys.modules.pop, name, None)
        return name

    def test_a_module_imported_later_is_handed_over_once_loaded_and_the_watcher_leaves(self):
        name = self.module("python_session_test_later", "VALUE = 41\n")
        seen = []
        finders = len(sys.meta_path)
        common.after_import(name, lambda module: seen.append(module.VALUE + 1))
        self.assertEqual(seen, [])
        __import__(name)
        self.assertEqual(seen, [42])
        self.assertEqual(len(sys.meta_path), finders)

    def test_a_module_already_imported_is_handed_over_at_once(self):
        seen = []
        common.after_import("json", seen.append)
        self.assertEqual(seen, [json])

    def test_a_failing_callback_does_not_fail_the_import(self):
        name = self.module("python_session_test_failing")

        def fail(module):
            raise RuntimeError("an unexpected version")

        common.after_import(name, fail)
        self.assertEqual(__import__(name).VALUE, 1)


@unittest.skipUnless(sys.platform.startswith("linux"), "the cap is Linux's RLIMIT_DATA")
class CapMemory(unittest.TestCase):
    PROBE = """
        import json, os, resource
        import python_session_common as common
        before = resource.getrlimit(resource.RLIMIT_DATA)
        common.cap_memory()
        after = resource.getrlimit(resource.RLIMIT_DATA)
        failed = False
        if after[0] != resource.RLIM_INFINITY and after[0] < (1 << 30):
            try:
                block = bytearray(1 << 30)
            except MemoryError:
                failed = True
        print(json.dumps({"before": before, "after": after, "left": "PYTHON_SESSION_MEMORY_LIMIT" in os.environ,
                          "memory_error": failed}))
    """

    def test_the_limit_caps_the_data_segment_and_is_removed_from_the_environment(self):
        limit = 512 * 1024 * 1024
        answer, _ = run_python(self.PROBE, {"PYTHON_SESSION_MEMORY_LIMIT": str(limit)})
        hard = answer["before"][1]
        self.assertEqual(answer["after"], [limit if hard < 0 else min(limit, hard), hard])
        self.assertFalse(answer["left"])
        self.assertTrue(answer["memory_error"])

    def test_no_limit_or_one_that_is_not_a_number_changes_nothing(self):
        for env in ({}, {"PYTHON_SESSION_MEMORY_LIMIT": "lots"}):
            answer, _ = run_python(self.PROBE, env)
            self.assertEqual(answer["after"], answer["before"], env)
            self.assertFalse(answer["left"])
            self.assertFalse(answer["memory_error"])


@unittest.skipUnless(has("matplotlib"), "matplotlib is not installed in %s" % sys.executable)
class Figures(unittest.TestCase):
    SETUP = """
        import json, sys
        import python_session_common as common
        shown = []
        def display(bundle, raw=False):
            shown.append({"mimes": sorted(bundle), "png": bundle["image/png"][:5], "raw": raw, "plain": bundle["text/plain"]})
        common.remember_closed_figures()
        at_cell_end = common.show_figures_under_file_backends(display)
    """

    def run_figures(self, code, backend="Agg"):
        return run_python(textwrap.dedent(self.SETUP) + textwrap.dedent(code), {"MPLBACKEND": backend})

    def test_show_and_the_cell_end_display_open_figures_as_png_then_close_them_and_keep_the_last(self):
        answer, _ = self.run_figures("""
            import matplotlib.pyplot as plt
            at_cell_end()  # nothing open: nothing shown
            first = plt.figure(); plt.plot([1, 2])
            plt.show()
            after_show = len(shown), plt.get_fignums()
            second = plt.figure(); plt.plot([3])
            at_cell_end()
            memory = sys.modules["_python_session_figures"]
            print(json.dumps({"after_show": after_show, "shown": shown, "open": plt.get_fignums(),
                              "last_is_second": memory.last is second, "files": common.draws_to_files()}))
        """)
        self.assertEqual(answer["after_show"], [1, []])
        self.assertEqual(len(answer["shown"]), 2)
        for bundle in answer["shown"]:
            self.assertEqual(bundle["mimes"], ["image/png", "text/plain"])
            self.assertEqual(bundle["png"], "iVBOR")
            self.assertTrue(bundle["raw"])
            self.assertIn("Figure", bundle["plain"])
        self.assertEqual(answer["open"], [])
        self.assertTrue(answer["last_is_second"])
        self.assertTrue(answer["files"])

    def test_the_figure_closed_last_is_kept_whichever_way_it_was_closed(self):
        answer, _ = self.run_figures("""
            import matplotlib.pyplot as plt
            memory = sys.modules["_python_session_figures"]
            kept = [memory.last is None]
            a = plt.figure(); plt.close(a); kept.append(memory.last is a)
            b = plt.figure(); plt.close(b.number); kept.append(memory.last is b)
            c = plt.figure(); plt.close("all"); kept.append(memory.last is c)
            print(json.dumps(kept))
        """)
        self.assertEqual(answer, [True, True, True, True])

    def test_a_figure_that_cannot_be_drawn_is_named_on_stderr_and_the_others_are_shown(self):
        answer, stderr = self.run_figures("""
            import matplotlib.pyplot as plt
            broken = plt.figure(); plt.plot([1])
            def refuse(*args, **kwargs):
                raise ValueError("no ink")
            broken.savefig = refuse
            fine = plt.figure(); plt.plot([2])
            at_cell_end()
            print(json.dumps({"shown": len(shown), "open": plt.get_fignums()}))
        """)
        self.assertEqual(answer, {"shown": 1, "open": []})
        self.assertIn("Figure 1 could not be drawn: no ink", stderr)

    def test_under_a_backend_that_is_not_file_only_matplotlib_is_left_alone(self):
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "python_session_test_backend.py"), "w") as file:
            file.write("from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas\n"
                       "def show(*args, **kwargs):\n    print('the backend showed')\n")
        answer, _ = self.run_figures("""
            sys.path.insert(0, %r)
            import matplotlib.pyplot as plt
            plt.figure(); plt.plot([1])
            plt.show()
            at_cell_end()
            print(json.dumps({"shown": len(shown), "open": plt.get_fignums(), "files": common.draws_to_files()}))
        """ % folder, backend="module://python_session_test_backend")
        self.assertEqual(answer, {"shown": 0, "open": [1], "files": False})


if __name__ == "__main__":
    unittest.main()
