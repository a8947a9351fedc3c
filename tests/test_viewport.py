"""Viewports: frames for people to watch, rendered after the step and outside the captured step program.

Scene: the ready ``box_on_cloth`` (a 0.1 m box, Steel, over a 0.4 m cloth pinned on two edges, VBD, virtual
proxy), one env, and a viewport looking straight down at it from 1.2 m (x right, y up in the image).
Expectations are geometric: where the pinned edges, the ground plane and the box project through a pinhole
of the viewport's field of view, computed here by hand.
"""

import math

import numpy as np
import pytest

import isaaclab_coupling_configs  # noqa: F401  (registers the scenes)
from isaaclab_contrib.physics.sensors.camera import SKY_RGB
from isaaclab_contrib.physics.viewport import PIN_RGB, Viewport
from isaaclab_contrib.scenes import CameraCfg, build_model, get_scene, launch, make_viewport

W, H, FOV, EYE_Z = 160, 120, math.radians(60.0), 1.2


@pytest.fixture(scope="module")
def model_and_state():
    model, _ = build_model(get_scene("box_on_cloth").scene_cfg(num_envs=1))
    return model, model.state()


def _pixel(point, eye_z=EYE_Z):
    """Pixel (column, row) of *point* [m] seen straight down from (0, 0, eye_z), image x along +x, up along +y."""
    focal = 0.5 * H / math.tan(0.5 * FOV)
    depth = eye_z - point[2]
    return int(0.5 * W + focal * point[0] / depth), int(0.5 * H - focal * point[1] / depth)


def _top_view(model, **kwargs) -> Viewport:
    return Viewport(model, W, H, eye=(0.0, 0.0, EYE_Z), target=(0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0), fov=FOV, **kwargs)


def test_a_top_view_shows_the_box_the_pins_and_a_checkered_ground(model_and_state):
    model, state = model_and_state
    image = _top_view(model).render(state)
    assert image.shape == (H, W, 3) and image.dtype == np.uint8
    # The box's top face at the center is neither sky nor ground.
    box = state.body_q.numpy()[0, :3]
    col, row = _pixel(box + np.array([0.0, 0.0, 0.05]))
    assert tuple(image[row, col]) != SKY_RGB and abs(int(col) - W // 2) <= 1
    # Every pinned particle that is visible is marked red, at the pixel a pinhole puts it.
    inv_mass = model.particle_inv_mass.numpy()
    pinned = state.particle_q.numpy()[inv_mass == 0.0]
    assert len(pinned) > 0
    for point in pinned:
        col, row = _pixel(point)
        if 2 <= col < W - 2 and 2 <= row < H - 2:
            assert tuple(image[row, col]) == PIN_RGB, (point, col, row)
    # No ray misses: the ground plane fills every pixel the cloth and box leave, as a checker of two shades.
    assert not np.all(image == np.array(SKY_RGB, dtype=np.uint8), axis=-1).any()
    border = image[0]  # beyond the cloth: the ground, about 1.4 m across at this height
    assert len({tuple(p) for p in border}) >= 2


def test_without_a_ground_missed_rays_show_the_sky_and_without_pins_nothing_is_marked(model_and_state):
    model, state = model_and_state
    image = _top_view(model, ground_height=None, mark_pins=False).render(state)
    assert np.all(image[0, 0] == SKY_RGB)  # the corner ray passes beside the cloth and hits nothing
    assert not np.all(image == np.array(PIN_RGB, dtype=np.uint8), axis=-1).any()


def test_the_ground_squares_are_ten_centimetres(model_and_state):
    model, state = model_and_state
    # Looking down from 1.2 m at a spot beside the cloth: the ground's color changes every 0.1 m along x.
    view = Viewport(
        model, W, H, eye=(1.5, 0.05, EYE_Z), target=(1.5, 0.05, 0.0), up=(0.0, 1.0, 0.0), fov=FOV, mark_pins=False
    )
    row = view.render(state)[H // 2].astype(int).sum(axis=1)
    focal = 0.5 * H / math.tan(0.5 * FOV)
    changes = np.flatnonzero(np.abs(np.diff(row)) > 20)
    xs = 1.5 + (changes + 1 - 0.5 * W) * EYE_Z / focal  # the ground x [m] where the shade changes
    on_grid = np.abs(xs / 0.1 - np.round(xs / 0.1)) * 0.1
    assert len(changes) >= 4 and np.all(on_grid < 2.5 * EYE_Z / focal)  # within two pixels of a 0.1 m line


def test_bad_arguments_are_refused_by_name(model_and_state):
    model, _ = model_and_state
    good = {"eye": (1.0, 1.0, 1.0), "target": (0.0, 0.0, 0.0)}
    with pytest.raises(ValueError, match="width"):
        Viewport(model, 0, H, **good)
    with pytest.raises(TypeError, match="height"):
        Viewport(model, W, 4.5, **good)
    with pytest.raises(ValueError, match="eye must be finite"):
        Viewport(model, W, H, eye=(float("nan"), 0.0, 1.0), target=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="target must be three numbers"):
        Viewport(model, W, H, eye=(1.0, 1.0, 1.0), target=(0.0, 0.0))
    with pytest.raises(ValueError, match="must differ"):
        Viewport(model, W, H, eye=(1.0, 1.0, 1.0), target=(1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="fov"):
        Viewport(model, W, H, fov=math.pi, **good)
    with pytest.raises(ValueError, match="env_index"):
        Viewport(model, W, H, env_index=1, **good)
    with pytest.raises(ValueError, match="env_origins"):
        Viewport(model, W, H, env_index=None, **good)
    with pytest.raises(ValueError, match="ground_height"):
        Viewport(model, W, H, ground_height=float("inf"), **good)


def test_rendering_after_steps_leaves_the_physics_captured_and_unchanged():
    """The same scene stepped with a frame rendered after every step and without: bitwise equal states, and the
    step program is one captured graph in both (a video is not an observation)."""
    spec = get_scene("box_on_cloth")
    finals = []
    for render in (False, True):
        sim = launch(spec.scene_cfg(num_envs=2), spec.simulation_cfg(device="cpu"))
        manager = sim.physics_manager
        try:
            assert manager.step_mode() == "captured", manager.eager_reason()
            view = make_viewport(manager, CameraCfg(width=48, height=36, env_index=1)) if render else None
            frames = []
            for _ in range(8):
                manager.step()
                if view is not None:
                    frames.append(view.render(manager.get_state_0()))
            assert manager.step_mode() == "captured"
            state = manager.get_state_0()
            finals.append((state.body_q.numpy().copy(), state.particle_q.numpy().copy()))
            if render:
                assert view.frames == 8 and frames[0].shape == (36, 48, 3)
                assert np.abs(frames[-1].astype(int) - frames[0].astype(int)).sum() > 0  # the box fell
        finally:
            sim.clear_instance()
    for without, with_render in zip(finals[0], finals[1], strict=True):
        np.testing.assert_array_equal(without, with_render)


def test_a_grid_viewport_places_each_view_at_its_env_origin():
    spec = get_scene("box_on_cloth")
    scene = spec.scene_cfg(num_envs=2)
    sim = launch(scene, spec.simulation_cfg(device="cpu"))
    try:
        manager = sim.physics_manager
        grid = make_viewport(
            manager,
            CameraCfg(
                width=40, height=30, env_index=None, eye=(0.0, 0.0, 1.2), target=(0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0)
            ),
            scene,
        )
        image = grid.render(manager.get_state_0())
        assert image.shape == (30, 2 * 40, 3)
        # Each env's box sits under its own view's center: the two halves are the same picture.
        np.testing.assert_array_equal(image[:, :40], image[:, 40:])
        with pytest.raises(ValueError, match="needs the scene config"):
            make_viewport(manager, CameraCfg(env_index=None, eye=(0.0, 0.0, 1.0), target=(0.0, 0.0, 0.0)))
        with pytest.raises(ValueError, match="fixed"):
            make_viewport(manager, CameraCfg(env_index=None, eye=(0.0, 0.0, 0.1), target=(0.0, 0.0, 0.0), body="Box"))
    finally:
        sim.clear_instance()


def test_every_ready_scene_declares_a_viewpoint_that_sees_its_envs_bodies_and_particles():
    from isaaclab_contrib.scenes import scene_names

    for name in scene_names():
        spec = get_scene(name)
        assert spec.viewpoint is not None, name
        view = spec.viewpoint
        forward = np.subtract(view.target, view.eye)
        assert np.linalg.norm(forward) > 0.1 and forward[2] < 0.0, name  # looking down at the scene
