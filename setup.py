"""Package list for setuptools: plugins/ installs as `workbench_plugins`, resources/ as
`workbench_resources` (declarative config cannot map a folder found by discovery)."""

from setuptools import find_packages, setup

FOLDERS = {"workbench_plugins": "plugins", "workbench_resources": "resources"}

packages = find_packages(include=["workbench", "workbench.*"])
for name, folder in FOLDERS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(where=folder)]

setup(packages=packages, package_dir=FOLDERS)
