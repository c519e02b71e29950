"""Package list for setuptools: the plugins/ directory installs as the `pypto_plugins` package."""

from setuptools import find_packages, setup

core = find_packages(include=["pypto", "pypto.*", "pypto_core", "pypto_core.*"])
bundled = ["pypto_plugins"] + [f"pypto_plugins.{p}" for p in find_packages("plugins")]
setup(packages=core + bundled, package_dir={"pypto_plugins": "plugins"})
