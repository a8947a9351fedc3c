"""One-way (kinematic) proxy coupling (``CouplerProxyMappingCfg.one_way``): a driven pusher (MuJoCo-Warp, a stiff
position drive on a vertical slide) presses into a pinned cloth (VBD).

Independent expectations:

* one-way, the pusher feels no reaction: its trajectory equals the trajectory of the same pusher with the cloth
  moved out of its way (no contact at all);
* two-way with a pusher 1000 times heavier, the reaction barely perturbs it, so the cloth moves as in the
  one-way run (the one-way result is the heavy-robot limit of the two-way one);
* two-way with a light pusher, the cloth does push it back (the option changes the physics).
"""

from __future__ import annotations

from typing import ClassVar

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import ImplicitActuatorCfg, MJWarpSolverCfg, NewtonCfg, SimulationCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationInitialStateCfg,
    InitialStateCfg,
    PinnedClothCfg,
    SceneBaseCfg,
    launch,
)
from isaaclab_contrib.utils.configclass import configclass


@configclass
class PusherCfg(ArticulationCfg):
    """A 5 cm sphere on a vertical slide (prismatic joint, +z) whose origin is ``init_state.pos``."""

    _ranges: ClassVar[dict[str, str]] = {"density": "> 0"}

    prim_path: str = "{ENV_REGEX_NS}/Pusher"
    entry: str | None = "robot"
    init_state: ArticulationInitialStateCfg = ArticulationInitialStateCfg(pos=(0.0, 0.0, 0.3))
    density: float = 100.0
    """Density of the sphere [kg/m^3]."""

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        at = wp.vec3(*self.init_state.pos)
        body = builder.add_link(xform=wp.transform(at, wp.quat_identity()), label=f"{label}/sphere")
        builder.add_shape_sphere(
            body, radius=0.05, cfg=newton.ModelBuilder.ShapeConfig(density=self.density), label=f"{label}/sphere/shape"
        )
        slide = builder.add_joint_prismatic(
            parent=-1,
            child=body,
            axis=wp.vec3(0.0, 0.0, 1.0),
            parent_xform=wp.transform(at, wp.quat_identity()),
            child_xform=wp.transform_identity(),
            label=f"{label}/slide",
        )
        builder.add_articulation([slide], label=label)


@configclass
class PusherOnClothSceneCfg(SceneBaseCfg):
    env_spacing: float = 2.0
    pusher: PusherCfg = PusherCfg()
    cloth: PinnedClothCfg = PinnedClothCfg(
        entry="cloth", cells=8, cell_size=0.05, particle_radius=0.02, init_state=InitialStateCfg(pos=(0.0, 0.0, 0.2))
    )
    one_way: bool = False
    stiffness: float = 2.0e3

    def coupler_cfg(self) -> CouplerProxyCfg:
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg("robot", MJWarpSolverCfg(disable_contacts=True, use_mujoco_contacts=False)),
                self.entry_cfg("cloth", VBDSolverCfg(iterations=10)),
            ],
            proxies=[
                CouplerProxyMappingCfg(
                    source="robot", destination="cloth", bodies=self.entry_bodies("robot"), one_way=self.one_way
                )
            ],
        )


def _run(device: str, *, one_way: bool, density: float, cloth_z: float = 0.2, steps: int = 45):
    """Drive the slide down 12 cm over 0.5 s (the sphere starts 5 cm above the cloth) and record the pusher's
    height and the cloth's particles after every env step."""
    scene = PusherOnClothSceneCfg(one_way=one_way)
    scene.pusher.density = density
    scene.pusher.actuators = {
        "slide": ImplicitActuatorCfg(
            joint_names_expr=["slide"], stiffness=scene.stiffness * density / 100.0, damping=density / 2.0
        )
    }
    scene.cloth.init_state.pos = (0.0, 0.0, cloth_z)
    sim = launch(scene, SimulationCfg(dt=1.0 / 60.0, device=device, physics=NewtonCfg(decimation=1, num_substeps=8)))
    manager = sim.physics_manager
    pusher, cloth = [], []
    try:
        assert manager.step_mode() == "captured"
        targets = manager.joint_view("joint_target_q")
        for k in range(steps):
            targets[:, 0] = -0.12 * min(1.0, k / 30.0)
            manager.step()
            state = manager.get_state_0()
            pusher.append(float(state.body_q.numpy()[0, 2]))
            cloth.append(state.particle_q.numpy().copy())
    finally:
        sim.clear_instance()
    return np.array(pusher), np.array(cloth)


@pytest.mark.slow  # kept out of the 5-minute default set
def test_one_way_the_robot_feels_no_reaction(device):
    pusher, cloth = _run(device, one_way=True, density=100.0)
    free, _ = _run(device, one_way=False, density=100.0, cloth_z=-1.0)  # the cloth far below: no contact
    center = cloth[:, PusherOnClothSceneCfg().cloth.center_particle(), 2]
    assert center.min() < 0.2 - 0.04  # the pusher pressed the cloth's middle down by more than 4 cm
    assert pusher == pytest.approx(free, abs=1.0e-6)  # and moved exactly as without any cloth


@pytest.mark.slow  # two pressing runs, one with a 1000 times heavier robot
def test_one_way_matches_two_way_with_a_much_heavier_robot(device):
    _, one_way = _run(device, one_way=True, density=1.0e5)
    heavy_pusher, heavy = _run(device, one_way=False, density=1.0e5)
    light_pusher, _ = _run(device, one_way=False, density=100.0)
    free, _ = _run(device, one_way=False, density=100.0, cloth_z=-1.0)
    moved = np.abs(heavy - heavy[0]).max()
    assert moved > 0.04
    assert np.abs(one_way - heavy).max() < 0.02 * moved  # the deformable's motion agrees within 2 % of its travel
    # The light pusher is held back by the cloth in two-way coupling (so the two options differ physically).
    assert (light_pusher - free).max() > 5.0e-3
    assert np.abs(heavy_pusher - free).max() < 1.0e-3


def test_one_way_is_validated():
    for field, value in (("mass_scale", 2.0), ("proxy_relaxation", 0.5), ("proxy_relaxation_mode", "aitken")):
        mapping = CouplerProxyMappingCfg(source="a", destination="b", bodies=[0], one_way=True)
        setattr(mapping, field, value)
        if field == "proxy_relaxation_mode":
            mapping.proxy_relaxation_min = 0.1
        with pytest.raises(ValueError, match=rf"Proxy\.one_way=True .* leave {field}="):
            mapping.validate("Proxy")
    mapping = CouplerProxyMappingCfg(source="a", destination="b", bodies=[0], one_way=True)
    mapping.validate()
    assert mapping.newton_feedback() == (1.0e6, 0.0, "fixed")
    with pytest.raises(ValueError, match="kinematic_mass_scale must be >= 1"):
        CouplerProxyMappingCfg(source="a", destination="b", bodies=[0], kinematic_mass_scale=0.5).validate()
