"""Newton solver families: each module holds one family's config (pure data) beside its binding.

A *config* (``SteelSolverCfg``...) maps fields to the solver's arguments; its *binding*
(``SteelBinding``...) builds the solver on a model and answers every question the runtime asks about it
(builder preparation, collision-pipeline needs, capture and masked-reset rules, reset flags, the observables
it can produce and their routing, the USD schema attributes it reads). :mod:`.base` holds the config base
classes, :mod:`.binding` the binding base class and the registry keyed by config class.

Adding a family is one module here: its config, its :class:`~.binding.SolverBinding` subclass (overriding
only what differs from the base class) and the line registering it, ``register_binding(MyCfg, MyBinding())``.
Importing this package imports every module in it (which registers their bindings) and exports what each
module lists in its ``__all__``; ``isaaclab_contrib.physics`` re-exports all of it.
"""

import importlib
import pkgutil

from isaaclab_contrib.physics.solvers import base, binding

FAMILY_MODULES: tuple[str, ...] = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name not in ("base", "binding"))
)
"""The family modules of this package: every module in the folder besides :mod:`.base` and :mod:`.binding`."""


def _exports() -> dict[str, object]:
    """Every name the package's modules list in their ``__all__`` (importing a family module registers it)."""
    exports: dict[str, object] = {}
    modules = [base, binding, *(importlib.import_module(f"{__name__}.{name}") for name in FAMILY_MODULES)]
    for module in modules:
        for name in module.__all__:
            if name in exports and exports[name] is not vars(module)[name]:
                raise ImportError(f"{module.__name__} exports {name!r}, which another solver module exports too")
            exports[name] = vars(module)[name]
    return exports


_EXPORTS = _exports()
globals().update(_EXPORTS)
__all__ = sorted(_EXPORTS)
