"""The STL view's VTK and PyVista, loaded before the view is built (`ViewSpec.warm_up`, on a
worker thread): seconds of imports that would otherwise freeze the window. Qt-free on purpose:
pyvistaqt itself defines Qt classes and is imported by the view, on the GUI thread."""

from __future__ import annotations

import importlib

MODULES = (
    "pyvista",
    "pyvista.plotting",
    "pyvista.plotting.render_window_interactor",
    "vtkmodules.vtkRenderingCore",
    "vtkmodules.vtkRenderingUI",
    "vtkmodules.vtkRenderingOpenGL2",
    "vtkmodules.vtkRenderingLOD",  # the big mesh's level-of-detail actor (stl_view)
    # what pyvista loads on first use while making the view's interactor (its chart styles)
    "vtkmodules.vtkInteractionWidgets",
    "vtkmodules.vtkViewsContext2D",
    "vtkmodules.vtkViewsCore",
)


def preload() -> None:
    for name in MODULES:
        importlib.import_module(name)
