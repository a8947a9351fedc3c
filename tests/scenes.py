"""Small Newton scenes with Isaac Lab-style labels, shared by the tests."""

from __future__ import annotations

import newton
import warp as wp

from isaaclab_contrib.coupling import build_coupled_solver, finalize_builder
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg, add_pinned_cloth

CLOTH_DIM = 8  # cells per side -> (CLOTH_DIM + 1) ** 2 particles
CLOTH_PARTICLES = (CLOTH_DIM + 1) ** 2


def add_grain_grid(builder: newton.ModelBuilder) -> None:
    """A 5 x 5 x 3 block of grains (5 cm apart, 2.5 cm radius, 0.2 kg each) from (-0.1, -0.1, 0.05) m, for an
    implicit-MPM entry."""
    builder.add_particle_grid(
        pos=wp.vec3(-0.1, -0.1, 0.05),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=5,
        dim_y=5,
        dim_z=3,
        cell_x=0.05,
        cell_y=0.05,
        cell_z=0.05,
        mass=0.2,
        jitter=0.0,
        radius_mean=0.025,
    )


def add_small_cloth(builder: newton.ModelBuilder, *, cells: int, height: float) -> None:
    """A light pinned cloth labelled ``Cloth`` (the second entry of the small coupled test scenes)."""
    add_pinned_cloth(
        builder,
        cells=cells,
        cell_size=0.1,
        height=height,
        particle_mass=0.01,
        particle_radius=0.01,
        stiffness=1.0e3,
        damping=1.0,
        label="Cloth",
    )


def add_cloth_grid(builder: newton.ModelBuilder, dim: int) -> None:
    """An unpinned *dim* x *dim*-cell cloth of 0.1 m cells, 1 m up (for builder-preparation tests)."""
    cloth = PinnedClothCfg(cells=dim, cell_size=0.1, particle_mass=0.1, fix_left=False, fix_right=False)
    cloth.init_state.pos = (0.5 * cloth.extent, 0.5 * cloth.extent, 1.0)  # its first particle at (0, 0, 1)
    cloth.add_to(builder, "Cloth")


def add_hinge_arm(
    builder: newton.ModelBuilder,
    root: str,
    *,
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0),
    joint: str = "hinge",
    capsule: bool = False,
    mass: float = 0.0,
    density: float | None = None,
) -> int:
    """A one-link arm on a revolute joint to the world, both 1 m up; returns the joint's index.

    Labels: the link ``{root}/link``, the joint ``{root}/{joint}``, the articulation ``{root}``. The link is a
    60 x 10 x 10 cm box ``{root}/link/box`` (of *density* [kg/m^3]; ``None``: the builder's default), or with
    *capsule* an unlabelled capsule of radius 2 cm and half height 10 cm; *mass* [kg] is the link's own.
    """
    link = builder.add_link(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), mass=mass, label=f"{root}/link")
    if capsule:
        builder.add_shape_capsule(link, radius=0.02, half_height=0.1)
    else:
        cfg = None if density is None else newton.ModelBuilder.ShapeConfig(density=density)
        builder.add_shape_box(link, hx=0.3, hy=0.05, hz=0.05, cfg=cfg, label=f"{root}/link/box")
    hinge = builder.add_joint_revolute(
        -1, link, axis=axis, parent_xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label=f"{root}/{joint}"
    )
    builder.add_articulation([hinge], label=root)
    return hinge


def env_prefixes(num_worlds: int) -> list[str]:
    return [f"/World/envs/env_{i}" for i in range(num_worlds)]


def robot_box_cloth_prototype() -> newton.ModelBuilder:
    """One env: a 3-link robot (free base + two revolute links), a free box, a marker and a pinned 8x8 cloth.

    Per env (ids relative to the env): bodies 0 base, 1 link1, 2 link2 (labelled below link1),
    3 box, 4 marker (a body with only a non-colliding site shape); joints 0 root, 1 hinge1,
    2 hinge2, 3 box free joint, 4 marker free joint; shapes one per body; 81 cloth particles.
    """
    b = newton.ModelBuilder()
    base = b.add_link(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="Robot/base")
    b.add_shape_box(base, hx=0.1, hy=0.1, hz=0.05, label="Robot/base/collision")
    link1 = b.add_link(xform=wp.transform((0.2, 0.0, 1.0), wp.quat_identity()), label="Robot/link1")
    b.add_shape_capsule(link1, radius=0.02, half_height=0.1, label="Robot/link1/collision")
    link2 = b.add_link(xform=wp.transform((0.4, 0.0, 1.0), wp.quat_identity()), label="Robot/link1/link2")
    b.add_shape_capsule(link2, radius=0.02, half_height=0.1, label="Robot/link1/link2/collision")
    j0 = b.add_joint_free(base, label="Robot/root_joint")
    j1 = b.add_joint_revolute(
        base,
        link1,
        parent_xform=wp.transform((0.1, 0.0, 0.0), wp.quat_identity()),
        child_xform=wp.transform((-0.1, 0.0, 0.0), wp.quat_identity()),
        axis=(0.0, 1.0, 0.0),
        label="Robot/hinge1",
    )
    j2 = b.add_joint_revolute(
        link1,
        link2,
        parent_xform=wp.transform((0.1, 0.0, 0.0), wp.quat_identity()),
        child_xform=wp.transform((-0.1, 0.0, 0.0), wp.quat_identity()),
        axis=(0.0, 1.0, 0.0),
        label="Robot/hinge2",
    )
    b.add_articulation([j0, j1, j2], label="Robot")
    box = b.add_body(xform=wp.transform((0.0, 0.0, 0.3), wp.quat_identity()), label="Box/body")
    b.add_shape_box(box, hx=0.05, hy=0.05, hz=0.05, label="Box/body/collision")
    marker = b.add_body(xform=wp.transform((1.0, 0.0, 1.0), wp.quat_identity()), label="Marker/body")
    b.add_shape_sphere(marker, radius=0.01, as_site=True, label="Marker/body/site")
    PinnedClothCfg(cells=CLOTH_DIM, init_state=InitialStateCfg(pos=(0.0, 0.0, 0.1))).add_to(b, "Cloth")
    return b


def replicated(prototype: newton.ModelBuilder, num_worlds: int, spacing: float = 2.0, ground: bool = False):
    """Replicate *prototype* into ``num_worlds`` worlds labelled ``/World/envs/env_{i}``."""
    builder = newton.ModelBuilder()
    builder.replicate(prototype, num_worlds, spacing=(spacing, 0.0, 0.0), label_prefixes=env_prefixes(num_worlds))
    if ground:
        builder.add_ground_plane(label="/World/ground")
    return builder


def sensor_prototype(box_density: float = 100.0) -> newton.ModelBuilder:
    """One env: a box resting on the ground, a box dropped on a pinned 8x8 cloth, an IMU site on each.

    Per env: bodies 0 GroundBox/body (10 cm, on the ground at x = 1 m), 1 ClothBox/body (10 cm,
    2 cm above the cloth at z = 0.1 m); sites GroundBox/body/imu and ClothBox/body/imu at the
    body origins. Add the ground plane after replication (``replicated(..., ground=True)``).
    """
    b = newton.ModelBuilder()
    cfg = newton.ModelBuilder.ShapeConfig(density=box_density)
    ground_box = b.add_body(xform=wp.transform((1.0, 0.0, 0.05), wp.quat_identity()), label="GroundBox/body")
    b.add_shape_box(ground_box, hx=0.05, hy=0.05, hz=0.05, cfg=cfg, label="GroundBox/body/collision")
    b.add_site(ground_box, label="GroundBox/body/imu")
    cloth_box = b.add_body(xform=wp.transform((0.0, 0.0, 0.17), wp.quat_identity()), label="ClothBox/body")
    b.add_shape_box(cloth_box, hx=0.05, hy=0.05, hz=0.05, cfg=cfg, label="ClothBox/body/collision")
    b.add_site(cloth_box, label="ClothBox/body/imu")
    add_pinned_cloth(
        b,
        cells=CLOTH_DIM,
        cell_size=0.05,
        height=0.1,
        particle_mass=0.01,
        particle_radius=0.01,
        stiffness=1.0e3,
        damping=10.0,
    )
    return b


def run_coupled(builder: newton.ModelBuilder, cfg, steps: int, dt: float, device: str):
    """Finalize *builder* for *cfg*, build the coupled solver and step it; returns the model and the last state."""
    finalize_builder(builder, cfg)
    model = builder.finalize(device=device)
    solver = build_coupled_solver(model, cfg)
    pipeline = newton.CollisionPipeline(model)
    contacts = pipeline.contacts()
    solver.prepare_contacts(contacts)
    state_0, state_1, control = model.state(), model.state(), model.control()
    for _ in range(steps):
        pipeline.collide(state_0, contacts)
        solver.step(state_0, state_1, control, contacts, dt)
        state_0, state_1 = state_1, state_0
    return model, state_0
