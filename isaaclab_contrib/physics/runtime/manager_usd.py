"""Kitless USD methods of the Newton manager front (mixed into ``NewtonManager``): stage in, results out.

The attached stage and the registered particle prims belong to the active session; the only thing
this mixin needs from the class it is mixed into is :meth:`UsdMethods._active` (and the builder
methods ``create_builder`` / ``set_builder`` / ``get_state`` of the front).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import newton

    from isaaclab_contrib.physics.runtime.session import ManagerSession

__all__ = ["UsdMethods"]


class UsdMethods:
    """USD class methods of the manager front."""

    @classmethod
    def _active(cls) -> ManagerSession:
        """The active session (provided by the manager front)."""
        raise NotImplementedError

    @classmethod
    def attach_stage(cls, stage: Any) -> None:
        """Attach a ``pxr.Usd.Stage`` (the kitless stand-in for Kit's current stage)."""
        from pxr import Usd

        if not isinstance(stage, Usd.Stage):
            raise TypeError(f"attach_stage expects a pxr.Usd.Stage, got {type(stage).__name__}")
        session = cls._active()
        session.usd_stage = stage
        if session.instance is not None:
            session.instance.usd_body_paths = None

    @classmethod
    def get_usd_stage(cls) -> Any:
        """The attached stage, or ``None``."""
        return cls._active().usd_stage

    @classmethod
    def instantiate_builder_from_stage(cls) -> newton.ModelBuilder:
        """Build the model builder from the attached stage and set it.

        Env Xforms (``/World/envs/env_0``, ``/World/envs/env_1``, ... or ``/World/Env_<i>``) become
        separate Newton worlds, with body and shape labels equal to their prim paths; prims outside
        them are global. A stage without env Xforms is added flat. Deformables are not read from USD
        (Newton's importer does not author them); add them to the returned builder in code.

        Solver-specific USD attributes: the builder comes from :meth:`create_builder` (every solver's
        custom attributes registered) and Newton's importer gets the schema resolvers the bindings of the solvers
        that run the scene name (``SolverBinding.usd_schema_resolvers``). When a MuJoCo solver runs it (a
        standalone ``MJWarpSolverCfg`` or a coupler entry with one), the ``mjc:*`` attributes authored
        for MuJoCo are imported: ``mjc:armature`` / ``mjc:frictionloss`` / ``mjc:damping`` on joints
        reach ``model.joint_armature`` / ``model.joint_friction`` / the joint damping, and so on
        (``newton:*`` values authored on the same prim keep priority). With no MuJoCo solver they are
        ignored: only Newton's own ``newton:*`` attributes (and the standard ``physics:*`` schema) are read.
        """
        from isaaclab_contrib.physics.usd.stage_io import load_stage_into_builder, schema_resolvers

        session = cls._active()
        session.require(session.usd_stage is not None, "no stage attached: call attach_stage(stage) first")
        builder = cls.create_builder()
        resolvers = schema_resolvers(session.binding.usd_schema_resolvers(session.solver_cfg))
        kwargs = {} if resolvers is None else {"schema_resolvers": resolvers}
        load_stage_into_builder(builder, session.usd_stage, **kwargs)
        cls.set_builder(builder)
        return builder

    @classmethod
    def _body_prim_paths(cls) -> list[str | None]:
        """Prim path of every body: its label when that is a prim on the stage, else the sanitized label."""
        from isaaclab_contrib.physics.usd.stage_io import sanitize_prim_path

        session = cls._active()
        instance = session.instance
        if instance.usd_body_paths is None:
            stage = session.usd_stage
            paths = []
            for label in instance.model.body_label:
                path = None
                for candidate in (label, sanitize_prim_path(label) if label else None):
                    if candidate and candidate.startswith("/") and stage.GetPrimAtPath(candidate):
                        path = candidate
                        break
                paths.append(path)
            instance.usd_body_paths = paths
        return instance.usd_body_paths

    @classmethod
    def sync_transforms_to_usd(cls, time_code: float | None = None) -> int:
        """Write the current body poses to the attached stage; returns the number of prims written.

        Each body whose label is a prim path on the stage gets one ``xformOp:transform`` (relative
        to its parent prim), as a time sample when *time_code* is given. No-op without a stage.
        """
        session = cls._active()
        instance = session.instance
        if session.usd_stage is None or instance is None or instance.model.body_count == 0:
            return 0
        from isaaclab_contrib.physics.usd.stage_io import write_body_transforms

        state = cls.get_state()
        return write_body_transforms(session.usd_stage, cls._body_prim_paths(), state.body_q.numpy(), time_code)

    @classmethod
    def register_particle_visual_prim(
        cls, prim_path: str, particle_offset: int, particle_count: int, sync_frequency: int = 1
    ) -> None:
        """Mirror ``particle_q[offset : offset + count]`` into the ``UsdGeom.Points`` prim at *prim_path*.

        Args:
            prim_path: Path of an existing ``UsdGeom.Points`` prim on the attached stage.
            particle_offset: First particle of the slice.
            particle_count: Number of particles.
            sync_frequency: Write every N-th :meth:`sync_particles_to_usd` call [calls].
        """
        session = cls._active()
        session.require(session.usd_stage is not None, "no stage attached: call attach_stage(stage) first")
        from pxr import UsdGeom

        prim = session.usd_stage.GetPrimAtPath(prim_path)
        if not prim or not prim.IsA(UsdGeom.Points):
            raise ValueError(f"register_particle_visual_prim: {prim_path!r} is not a UsdGeom.Points prim")
        if particle_offset < 0 or particle_count < 1 or sync_frequency < 1:
            raise ValueError("register_particle_visual_prim: offset >= 0, count >= 1 and sync_frequency >= 1 required")
        session.particle_prims.append((prim_path, int(particle_offset), int(particle_count), int(sync_frequency)))

    @classmethod
    def sync_particles_to_usd(cls, time_code: float | None = None) -> int:
        """Write particle positions [m, world frame] to every registered Points prim due this call.

        Returns the number of prims written; no-op without a stage or particles.
        """
        session = cls._active()
        instance = session.instance
        if session.usd_stage is None or instance is None or not session.particle_prims:
            return 0
        if instance.model.particle_count == 0:
            return 0
        from isaaclab_contrib.physics.usd.stage_io import write_points

        points = cls.get_state().particle_q.numpy()
        frame = instance.render_frame
        written = 0
        for path, offset, count, every in session.particle_prims:
            if offset + count > points.shape[0]:
                raise ValueError(
                    f"particle prim {path!r}: slice [{offset}, {offset + count}) exceeds {points.shape[0]}"
                )
            if frame % every == 0:
                write_points(session.usd_stage, path, points[offset : offset + count], time_code)
                written += 1
        instance.render_frame = frame + 1
        return written

    @classmethod
    def pre_render(cls) -> None:
        """Apply pending FK so renderers read a consistent state (no Kit renderer kitless)."""
        instance = cls._active().instance
        if instance is not None:
            instance.apply_pending_resets()
