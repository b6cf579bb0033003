"""Install commands always target the interpreter the kernel runs in."""

import os
import sys
import tempfile
import unittest

from python_session.errors import ToolError
from python_session.installing import install_command, missing_package, require


class InstallCommand(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="python-session-install-")

    def tearDown(self):
        import shutil
        shutil.rmtree(self.tmp, True)

    def test_pip_for_the_running_interpreter(self):
        command = install_command("pyarrow", prefix=self.tmp, executable="/opt/py/bin/python3",
                                  has_pip=True)
        self.assertEqual(command, "/opt/py/bin/python3 -m pip install pyarrow")
        command = install_command("pyarrow", prefix=self.tmp,
                                  executable=r"C:\Program Files\Python311\python.exe",
                                  has_pip=True)
        self.assertEqual(command, r'"C:\Program Files\Python311\python.exe" -m pip install pyarrow')

    def test_this_machine(self):
        if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
            self.assertTrue(install_command("x").startswith("conda install"))
        else:
            self.assertIn(sys.executable, install_command("xlrd"))
            self.assertTrue(install_command("xlrd").endswith("-m pip install xlrd"))

    def test_conda_environments(self):
        named = os.path.join(self.tmp, "anaconda3", "envs", "econ")
        os.makedirs(os.path.join(named, "conda-meta"))
        self.assertEqual(install_command("pyreadstat", prefix=named),
                         "conda install -n econ pyreadstat")
        base = os.path.join(self.tmp, "anaconda3")
        os.makedirs(os.path.join(base, "condabin"))
        os.makedirs(os.path.join(base, "conda-meta"), exist_ok=True)
        self.assertEqual(install_command("pyarrow", prefix=base), "conda install -n base pyarrow")
        loose = os.path.join(self.tmp, "my project", ".conda")
        os.makedirs(os.path.join(loose, "conda-meta"))
        self.assertEqual(install_command("xlrd", prefix=loose),
                         'conda install -p "%s" xlrd' % loose)

    def test_uv_environment_without_pip(self):
        with open(os.path.join(self.tmp, "pyvenv.cfg"), "w") as handle:
            handle.write("home = /usr/bin\nuv = 0.4.0\n")
        self.assertEqual(install_command("pyarrow", prefix=self.tmp,
                                         executable="/p/.venv/bin/python", has_pip=False),
                         "uv pip install --python /p/.venv/bin/python pyarrow")

    def test_missing_package_error(self):
        error = missing_package("pyarrow", "Reading Parquet files")
        self.assertEqual(error.kind, "missing_package")
        self.assertIn("pyarrow", error.message)
        self.assertIn(error.install, error.message)
        with self.assertRaises(ToolError) as caught:
            require("no_such_module_python_session", "Testing")
        self.assertEqual(caught.exception.kind, "missing_package")


if __name__ == "__main__":
    unittest.main()
