"""Base config of a scene: its assets, nested as fields, build themselves and give the scene's coupler.

A scene config (Isaac Lab's ``InteractiveSceneCfg``) subclasses :class:`SceneBaseCfg`, declares its assets as
fields (asset configs, see :mod:`isaaclab_contrib.scenes.asset_base`) and implements :meth:`coupler_cfg`,
whose entries' selectors come from the assets (:meth:`SceneBaseCfg.entry_cfg`). :meth:`SceneBaseCfg.build`
adds it all to a Newton builder, in the order the asset fields are declared:

1. every asset's ``prepare_builder`` on the builder;
2. the global assets declared before the first per-env asset;
3. the per-env assets into one env prototype (after every asset's ``prepare_builder`` on it), then
   :meth:`SceneBaseCfg.connect` (joints and attachments between them), then the prototype replicated into
   ``num_envs`` worlds labelled ``/World/envs/env_{i}``;
4. the remaining global assets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

import newton

from isaaclab_contrib.coupling import CouplerCfg, CouplerEntryCfg
from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

from .asset_base import AssetBaseCfg, SpawnedAsset
from .checks import FiniteCheck, SceneCheck
from .replicate import WorldSite, env_particle_blocks, replicate_envs

__all__ = ["SceneBaseCfg"]


@configclass
class SceneBaseCfg:
    """Fields shared by every scene config; a scene subclasses it, sets its own ``env_spacing`` default and
    declares its assets as fields (``None`` leaves an asset out).

    ``validate()`` checks every field against its type and the range declared in ``_ranges`` (merged along the
    class hierarchy), and every asset; errors name the scene class and the field path
    (``BoxOnClothSceneCfg.cloth.cells must be >= 1, got 0``). Nothing here modifies the config.
    """

    _ranges: ClassVar[dict[str, str]] = {"num_envs": ">= 1", "env_spacing": ">= 0"}

    num_envs: int = 1
    """Number of environments (Newton worlds) [count]."""
    env_spacing: float
    """Distance between neighbouring env origins along x [m]."""

    # ------------------------------------------------------------------ assets
    def assets(self) -> dict[str, AssetBaseCfg]:
        """The scene's assets by field name, in declaration order (the build order)."""
        found = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, AssetBaseCfg):
                found[f.name] = value
        return found

    def _asset(self, name: str) -> AssetBaseCfg:
        assets = self.assets()
        if name not in assets:
            raise KeyError(f"{type(self).__name__} has no asset {name!r}; its assets: {sorted(assets)}")
        return assets[name]

    def env_origins(self) -> list[tuple[float, float, float]] | None:
        """Origins of the envs [m]; ``None`` (the default) spaces them :attr:`env_spacing` apart along x."""
        return None

    def env_origin_positions(self, up_axis: int = 2) -> list[tuple[float, float, float]]:
        """Where every env's origin lies [m], as :meth:`build` places them: :meth:`env_origins`, or the
        offsets Newton's ``replicate`` gives for :attr:`env_spacing` along x."""
        origins = self.env_origins()
        if origins is None:
            from newton.utils import compute_world_offsets

            origins = compute_world_offsets(self.num_envs, (self.env_spacing, 0.0, 0.0), up_axis)
        return [tuple(float(v) for v in origin) for origin in origins]

    # ------------------------------------------------------------------ building
    def connect(self, builder: newton.ModelBuilder, spawned: dict[str, SpawnedAsset]) -> None:
        """Add what joins the per-env assets of one env (joints, attachments) to the env prototype *builder*.

        *spawned* gives each per-env asset's prototype-local index ranges. Default: nothing.
        """

    def build(self, builder: newton.ModelBuilder, sites: Sequence[WorldSite] = ()) -> None:
        """Validate the scene and add it to *builder* (:meth:`add_to_builder`)."""
        self.validate()
        self.add_to_builder(builder, sites)

    def add_to_builder(self, builder: newton.ModelBuilder, sites: Sequence[WorldSite] = ()) -> None:
        """Add the scene, validated already, to *builder* (see the module documentation for the order); every env
        gets the bodyless *sites* (:func:`~isaaclab_contrib.scenes.replicate_envs`)."""
        assets = self.assets()
        names = list(assets)
        first_env = next((i for i, name in enumerate(names) if assets[name].is_per_env()), len(names))
        for asset in assets.values():
            asset.prepare_builder(builder)
        for name in names[:first_env]:
            assets[name].add_to(builder, assets[name].label())
        env_assets = {name: asset for name, asset in assets.items() if asset.is_per_env()}
        if env_assets:
            proto = newton.ModelBuilder()
            for asset in env_assets.values():
                asset.prepare_builder(proto)
            spawned = {name: self._add(proto, name, asset) for name, asset in env_assets.items()}
            self.connect(proto, spawned)
            replicate_envs(
                builder, proto, self.num_envs, spacing=self.env_spacing, origins=self.env_origins(), sites=sites
            )
        for name in names[first_env:]:
            if not assets[name].is_per_env():
                assets[name].add_to(builder, assets[name].label())

    def _add(self, builder: newton.ModelBuilder, name: str, asset: AssetBaseCfg) -> SpawnedAsset:
        counts = (builder.body_count, builder.joint_count, builder.shape_count, builder.particle_count)
        asset.add_to(builder, asset.label())
        added = builder.particle_count - counts[3]
        if added != asset.particle_count():
            raise RuntimeError(
                f"{type(self).__name__}.{name}: {type(asset).__name__} added {added} particles, but its "
                f"particle_count() says {asset.particle_count()}"
            )
        return SpawnedAsset(
            bodies=range(counts[0], builder.body_count),
            joints=range(counts[1], builder.joint_count),
            shapes=range(counts[2], builder.shape_count),
            particles=range(counts[3], builder.particle_count),
        )

    # ------------------------------------------------------------------ the coupler
    def coupler_cfg(self) -> CouplerCfg:
        """The scene's coupler config (:class:`~isaaclab_contrib.coupling.CouplerAdmmCfg` or
        :class:`~isaaclab_contrib.coupling.CouplerProxyCfg`); build the entries with :meth:`entry_cfg`."""
        raise NotImplementedError(f"{type(self).__name__} does not implement coupler_cfg()")

    def _particle_layout(self) -> dict[str, list[int]]:
        """Global particle ids of every asset: the global assets before the envs, the envs, the rest."""
        assets = self.assets()
        names = list(assets)
        first_env = next((i for i, name in enumerate(names) if assets[name].is_per_env()), len(names))
        env_names = [name for name in names if assets[name].is_per_env()]
        ids: dict[str, list[int]] = {}
        start = 0
        for name in names[:first_env]:
            count = assets[name].particle_count()
            ids[name], start = list(range(start, start + count)), start + count
        counts = [assets[name].particle_count() for name in env_names]
        for name, block in zip(env_names, env_particle_blocks(self.num_envs, *counts), strict=True):
            ids[name] = [start + i for i in block]
        start += self.num_envs * sum(counts)
        for name in names[first_env:]:
            if name not in ids:
                count = assets[name].particle_count()
                ids[name], start = list(range(start, start + count)), start + count
        return ids

    def particle_ids(self, name: str) -> list[int]:
        """Global particle ids of the asset *name* (in every env, env after env, for a per-env asset)."""
        self._asset(name)
        return self._particle_layout()[name]

    def entry_assets(self, entry: str) -> dict[str, AssetBaseCfg]:
        """The assets the coupler entry *entry* owns (all of, or a part of: see
        :meth:`AssetBaseCfg.entry_names`), by field name."""
        return {name: asset for name, asset in self.assets().items() if entry in asset.entry_names()}

    def entry_bodies(self, entry: str) -> list[str]:
        """Body selectors (label regexes) of the assets with bodies that *entry* owns."""
        return [
            asset.selector()
            for asset in self.entry_assets(entry).values()
            if asset.owns_bodies() and asset.entry == entry
        ]

    def entry_particles(self, entry: str) -> list[int]:
        """Global particle ids of the particles *entry* owns (:meth:`AssetBaseCfg.entry_particle_indices` of each
        asset, in every env), sorted."""
        layout = self._particle_layout()
        owned = []
        for name, asset in self.entry_assets(entry).items():
            local = asset.entry_particle_indices(entry)
            if not local:
                continue
            ids, count = layout[name], asset.particle_count()
            copies = self.num_envs if asset.is_per_env() else 1
            owned += [ids[env * count + i] for env in range(copies) for i in local]
        return sorted(owned)

    def entry_cfg(self, entry: str, solver_cfg: Any, **kwargs: Any) -> CouplerEntryCfg:
        """The coupler entry *entry* with its selectors derived from the assets it owns.

        Bodies: the selector of each owned rigid object and articulation; particles: ``all_particles=True``
        when the entry owns every particle of the scene, else the owned assets' particle ids; static assets
        (the ground): ``include_static_shapes=True``. *kwargs* set the other :class:`CouplerEntryCfg` fields.

        Raises:
            ValueError: No asset names *entry* (a typo in an asset's ``entry`` or here).
        """
        owned = self.entry_assets(entry)
        if not owned:
            entries = sorted({e for a in self.assets().values() for e in a.entry_names()})
            raise ValueError(f"{type(self).__name__}: no asset is owned by entry {entry!r}; asset entries: {entries}")
        selectors: dict[str, Any] = {"bodies": self.entry_bodies(entry)}
        particles = self.entry_particles(entry)
        total = sum(len(ids) for ids in self._particle_layout().values())
        if particles and len(particles) == total:
            selectors["all_particles"] = True
        elif particles:
            selectors["particles"] = particles
        if any(asset.is_static() for asset in owned.values()):
            selectors["include_static_shapes"] = True
        return CouplerEntryCfg(name=entry, solver_cfg=solver_cfg, **selectors, **kwargs)

    def check_coupler(self, coupler: Any) -> None:
        """Raise ``ValueError`` when an asset names an entry *coupler* does not have (a coupler config)."""
        if not isinstance(coupler, CouplerCfg):
            return
        names = coupler.entry_names()
        for name, asset in self.assets().items():
            for owner in sorted(asset.entry_names()):
                if owner not in names:
                    field = f"entry={owner!r}" if owner == asset.entry else f"entries (value {owner!r})"
                    raise ValueError(
                        f"{type(self).__name__}.{name}.{field} is not an entry of the coupler "
                        f"{type(coupler).__name__} (entries {names})"
                    )

    # ------------------------------------------------------------------ USD output
    def write_usd(self, stage: Any, particle_q: Any, time_code: float) -> None:
        """Write what the assets author themselves into the output *stage* at *time_code* (e.g. the deformed
        shapes of USD-authored deformables, :meth:`UsdDeformablesCfg.write_usd`); *particle_q* holds every
        particle position of the model [m]. Assets without a ``write_usd`` are skipped."""
        layout = self._particle_layout()
        for name, asset in self.assets().items():
            writer = getattr(asset, "write_usd", None)
            count = asset.particle_count()
            if writer is None or count == 0:
                continue
            copies = self.num_envs if asset.is_per_env() else 1
            writer(stage, particle_q, [layout[name][env * count] for env in range(copies)], time_code)

    # ------------------------------------------------------------------ success checks
    def checks(self) -> list[SceneCheck]:
        """The scene's success checks (new objects on every call), recorded by ``scripts/run.py`` after every env
        step and written into its JSON summary; a failed check makes the run exit with status 1.

        Default: :class:`~isaaclab_contrib.scenes.checks.FiniteCheck` (every state stayed finite). A scene adds
        its own with ``[*super().checks(), ...]``.
        """
        return [FiniteCheck()]

    # ------------------------------------------------------------------ validation
    def validate(self, where: str | None = None) -> None:
        """Check unset fields, every field's type and range, and every asset; labels must be unique."""
        label = where or type(self).__name__
        check_missing(self)
        check_fields(self, label)
        seen: dict[str, str] = {}
        for name, asset in self.assets().items():
            asset.validate(f"{label}.{name}")
            other = seen.setdefault(asset.prim_path, name)
            if other != name:
                raise ValueError(
                    f"{label}.{name}.prim_path={asset.prim_path!r} is also the prim_path of {label}.{other}"
                )
