"""The topology optimisation plugin's Qt views (the only part of the plugin that imports Qt).

density_view.py follows a running optimisation live and offers a Run form (run_form.py); when
idle it shows the newest stored design (stored_design.py). stl_view.py shows an exported or
opened STL in a VTK interactor, read and checked off the GUI thread (mesh_loading.py).
"""

from workbench_plugins.topopt.views.density_view import DensityView, density_view
from workbench_plugins.topopt.views.stl_view import StlView, stl_view

__all__ = ["DensityView", "StlView", "density_view", "stl_view"]
