"""Ownership resolution over a finalized 4-world model with Isaac Lab-style labels (no stepping).

Per env (see scenes.py): bodies/joints/shapes 0 base, 1 link1, 2 link2 (labelled below link1),
3 box, 4 marker (site only); 81 particles; the ground is the last shape.
"""

import warnings

import numpy as np
import pytest
from scenes import CLOTH_PARTICLES, replicated, robot_box_cloth_prototype

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
    CouplingWarning,
    build_coupled_solver,
    resolve_coupling,
    resolve_entries,
)
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.utils.configclass import configclass

WORLDS = 4
STRIDE = 5
GROUND = WORLDS * STRIDE


def per_world(*local):
    return [w * STRIDE + i for w in range(WORLDS) for i in local]


@pytest.fixture(scope="module")
def model():
    return replicated(robot_box_cloth_prototype(), WORLDS, ground=True).finalize(device="cpu")


def entry(name, solver=None, **kw):
    return CouplerEntryCfg(name=name, solver_cfg=solver or SteelSolverCfg(), **kw)


def admm(*entries, **kw):
    return CouplerAdmmCfg(entries=list(entries), **kw)


def resolve_quiet(model, cfg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CouplingWarning)
        return resolve_entries(model, cfg)


def test_path_regex_selects_bodies_below_it_with_joints_and_shapes(model):
    owned = resolve_quiet(
        model,
        admm(
            entry("robot", bodies=["/World/envs/env_.*/Robot"]),
            entry("box", bodies=[".*/Box/body"], include_static_shapes=True),
            entry("cloth", VBDSolverCfg(), all_particles=True),
        ),
    )
    assert owned["robot"].bodies == per_world(0, 1, 2)
    assert owned["robot"].joints == per_world(0, 1, 2)
    assert owned["robot"].shapes == per_world(0, 1, 2)
    assert owned["robot"].particles == []
    assert owned["box"].bodies == per_world(3)
    assert owned["box"].joints == per_world(3)
    assert owned["box"].shapes == [*per_world(3), GROUND]
    assert owned["cloth"].particles == list(range(WORLDS * CLOTH_PARTICLES))
    assert owned["cloth"].bodies == owned["cloth"].joints == owned["cloth"].shapes == []


def test_match_is_full_and_takes_descendants_of_a_body(model):
    owned = resolve_quiet(model, admm(entry("arm", bodies=["/World/envs/env_1/Robot/link1"])))
    # link1 and link2 (labelled below link1); hinge1's parent (base) is not selected -> not owned.
    assert owned["arm"].bodies == [6, 7]
    assert owned["arm"].joints == [7]
    assert owned["arm"].shapes == [6, 7]
    with pytest.raises(
        ValueError, match=r"CouplerAdmmCfg\.entries\['arm'\]\.bodies\[0\]='Robot/link1' matches no body"
    ):
        resolve_entries(model, admm(entry("arm", bodies=["Robot/link1"])))
    with pytest.raises(ValueError, match=r"bodies\[1\]='/World/envs/env_0/Rob' matches no body"):
        resolve_entries(model, admm(entry("arm", bodies=[".*/Box/body", "/World/envs/env_0/Rob"])))


def test_child_joint_rule_and_switches(model):
    owned = resolve_quiet(
        model,
        admm(
            entry(
                "base", bodies=[".*/Robot/base"], include_body_shapes=False, shape_label_patterns=[".*/base/collision"]
            ),
            entry("links", bodies=[".*/Robot/link1"], include_child_joints=False),
        ),
    )
    assert owned["base"].bodies == per_world(0)
    assert owned["base"].joints == per_world(0)  # root joint: parent is the world
    assert owned["base"].shapes == per_world(0)  # through the shape pattern
    assert owned["links"].bodies == per_world(1, 2)
    assert owned["links"].joints == []
    assert owned["links"].shapes == per_world(1, 2)
    plain = resolve_quiet(model, admm(entry("robot", bodies=[".*/Robot"], include_body_shapes=False)))
    assert plain["robot"].shapes == []


def test_particles_explicit_and_out_of_range(model):
    owned = resolve_quiet(model, admm(entry("cloth", VBDSolverCfg(), particles=[5, 0, 81])))
    assert owned["cloth"].particles == [0, 5, 81]
    with pytest.raises(ValueError, match=r"entries\['cloth'\]\.particles: index 9999 is out of range"):
        resolve_entries(model, admm(entry("cloth", VBDSolverCfg(), particles=[9999])))


@pytest.mark.parametrize(
    ("entries", "match"),
    [
        (
            [entry("a", bodies=[".*/Box/body"]), entry("b", bodies=["/World/envs/env_2/Box/body"])],
            r"body '/World/envs/env_2/Box/body' \(id 13\) is owned by both entries 'a' and 'b'",
        ),
        (
            [
                entry("a", bodies=[".*/Box"], include_static_shapes=True),
                entry("b", bodies=[".*/Robot"], include_static_shapes=True),
            ],
            r"shape '/World/ground' \(id 20\) is owned by both entries 'a' and 'b'",
        ),
        (
            [entry("a", VBDSolverCfg(), particles=[1, 2]), entry("b", VBDSolverCfg(), all_particles=True)],
            r"particle id 1 is owned by both entries 'a' and 'b'",
        ),
        (
            [
                entry("a", bodies=[".*/Box/body"]),
                entry("b", bodies=[".*/Robot"], shape_label_patterns=[".*/Box/body/collision"]),
            ],
            r"shape '/World/envs/env_0/Box/body/collision' \(id 3\) is owned by both entries 'a' and 'b'",
        ),
    ],
)
def test_double_ownership_names_both_entries_and_the_element(model, entries, match):
    with pytest.raises(ValueError, match=match):
        resolve_entries(model, admm(*entries))


def test_entry_that_owns_nothing(model):
    with pytest.raises(ValueError, match=r"entries\['idle'\] neither owns anything"):
        resolve_entries(model, admm(entry("robot", bodies=[".*/Robot"]), entry("idle", VBDSolverCfg())))


def test_unmatched_shape_pattern_and_static_without_statics(model):
    with pytest.raises(ValueError, match=r"shape_label_patterns\[0\]='nothing' matches no shape"):
        resolve_entries(model, admm(entry("r", bodies=[".*/Robot"], shape_label_patterns=["nothing"])))
    flat = replicated(robot_box_cloth_prototype(), 1).finalize(device="cpu")
    with pytest.raises(ValueError, match=r"include_static_shapes=True, but the model has no static shape"):
        resolve_entries(flat, admm(entry("r", bodies=[".*/Robot"], include_static_shapes=True)))


def test_cross_entry_joints(model):
    entries = [entry("base", bodies=[".*/Robot/base"]), entry("links", bodies=[".*/Robot/link1"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CouplingWarning)
        plan = resolve_coupling(model, admm(*entries))
    assert plan.cross_entry_joints == per_world(1)  # hinge1: base -> link1
    with pytest.raises(
        ValueError,
        match=r"joint '/World/envs/env_0/Robot/hinge1' \(id 1\) connects bodies of entries 'base' and 'links'",
    ):
        resolve_coupling(model, CouplerProxyCfg(entries=entries))


def test_static_geometry_warning(model):
    cfg = admm(entry("robot", bodies=[".*/Robot"]), entry("cloth", VBDSolverCfg(), all_particles=True))
    with pytest.warns(CouplingWarning, match=r"entries \['robot'\].*include_static_shapes=True"):
        plan = resolve_coupling(model, cfg)
    assert plan.entries["cloth"].sees_static_shapes and not plan.entries["robot"].sees_static_shapes
    cfg.entries[0].include_static_shapes = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CouplingWarning)
        plan = resolve_coupling(model, cfg)
    assert not any("static shapes" in str(w.message) for w in caught)
    assert plan.entries["robot"].sees_static_shapes
    # What is left is the (correct) note that the boxes, owned by no entry here, will not move.
    assert [m for m in plan.warnings if "static" in m] == []
    assert len(plan.warnings) == 1 and "dynamic bodies belong to no entry" in plan.warnings[0]


def test_unowned_report(model):
    plan = resolve_coupling(
        model,
        admm(
            entry("robot", bodies=[".*/Robot"], include_static_shapes=True),
            entry("cloth", VBDSolverCfg(), particles=[0]),
        ),
    )
    assert plan.unowned_bodies == per_world(3, 4)
    assert plan.unowned_joints == per_world(3, 4)
    assert plan.unowned_shapes == per_world(3, 4)
    assert plan.unowned_particles == list(range(1, WORLDS * CLOTH_PARTICLES))
    assert plan.static_shapes == [GROUND]
    assert plan.contact_pairs == [("robot", "cloth")]


def proxy_cfg(selectors, source_bodies=(".*/Box", ".*/Marker")):
    return CouplerProxyCfg(
        entries=[
            entry("rigid", bodies=list(source_bodies), include_static_shapes=True),
            entry("cloth", VBDSolverCfg(), all_particles=True),
        ],
        proxies=[CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=list(selectors), particles=[])],
    )


def test_proxy_selectors_resolve_to_collidable_bodies(model):
    plan = resolve_coupling(model, proxy_cfg([r"/World/envs/env_\d+/(Box|Marker)"]))
    # The marker bodies (4, 9, ...) have only a site shape and are dropped from a regex selection.
    assert plan.proxies[0].bodies == per_world(3)
    raw = resolve_coupling(model, proxy_cfg([3, 4, "/World/envs/env_1/Box/body"]))
    assert raw.proxies[0].bodies == [3, 4, 8]
    with pytest.raises(
        ValueError, match=r"proxies\[0\]\.bodies\[0\]='.\*/Marker/body' matches 4 bodies, none with a collidable shape"
    ):
        resolve_coupling(model, proxy_cfg([".*/Marker/body"]))
    with pytest.raises(
        ValueError,
        match=r"proxies\[0\]\.bodies: body '/World/envs/env_0/Robot/base' \(id 0\).*not owned by the source entry 'rigid'",
    ):
        resolve_coupling(model, proxy_cfg([0]))
    with pytest.raises(ValueError, match=r"proxies\[0\]\.bodies\[0\]=999 is out of range"):
        resolve_coupling(model, proxy_cfg([999]))
    with pytest.raises(ValueError, match=r"proxies\[0\]\.bodies\[0\]='nope' matches no body"):
        resolve_coupling(model, proxy_cfg(["nope"]))


def test_proxy_particles_must_belong_to_source(model):
    cfg = proxy_cfg([3])
    cfg.proxies[0].particles = [0]
    with pytest.raises(
        ValueError, match=r"proxies\[0\]\.particles: particle 0 is not owned by the source entry 'rigid'"
    ):
        resolve_coupling(model, cfg)


def test_solver_without_coupling_interface_is_rejected(model):
    @configclass
    class Style3DCfg(NewtonSolverCfg):
        solver_class_path = "newton.solvers:SolverStyle3D"

    Style3DCfg.solver_class_path = "newton.solvers:SolverStyle3D"
    cfg = admm(
        entry("robot", bodies=[".*/Robot"], include_static_shapes=True),
        entry("cloth", Style3DCfg(), all_particles=True),
    )
    with pytest.raises(ValueError, match=r"entries\['cloth'\]\.solver_cfg: SolverStyle3D cannot be a coupled entry"):
        build_coupled_solver(model, cfg)


def test_stale_solver_field_fails_before_construction(model):
    @configclass
    class OldXPBDCfg(XPBDSolverCfg):
        removed_option: int = 1

    cfg = admm(entry("robot", OldXPBDCfg(), bodies=[".*/Robot"], include_static_shapes=True))
    with pytest.raises(TypeError, match="removed_option"):
        build_coupled_solver(model, cfg)


def test_resolution_does_not_mutate_config(model):
    cfg = proxy_cfg([".*/Box/body"])
    resolve_coupling(model, cfg)
    assert cfg.proxies[0].bodies == [".*/Box/body"]
    assert np.all(model.shape_body.numpy()[:5] == np.arange(5))


# ------------------------------------------------------------------ bodies by index, proxy joints
def test_body_ids_select_exactly_those_bodies_with_their_joints_and_shapes(model):
    owned = resolve_quiet(model, admm(entry("boxes", body_ids=per_world(3))))
    assert owned["boxes"].bodies == per_world(3)
    assert owned["boxes"].joints == per_world(3)  # the free joints follow their child body
    assert owned["boxes"].shapes == per_world(3)
    # An id selects that body only (no descendants, unlike a label path); ids and regexes combine.
    owned = resolve_quiet(model, admm(entry("mixed", bodies=["/World/envs/env_0/Box"], body_ids=[6, 3])))
    assert owned["mixed"].bodies == [3, 6]
    assert owned["mixed"].joints == [3]  # hinge1 of world 1: its parent (base, 5) is not selected
    with pytest.raises(
        ValueError,
        match=rf"entries\['boxes'\]\.body_ids\[1\]={WORLDS * STRIDE} is out of range: the model has {WORLDS * STRIDE} bodies",
    ):
        resolve_entries(model, admm(entry("boxes", body_ids=[0, WORLDS * STRIDE])))


@pytest.mark.parametrize(
    "other",
    [entry("by_regex", bodies=["/World/envs/env_2/Box/body"]), entry("by_id", body_ids=[13])],
    ids=["regex", "id"],
)
def test_an_id_claimed_twice_is_the_same_error_as_a_regex_overlap(model, other):
    with pytest.raises(
        ValueError,
        match=rf"body '/World/envs/env_2/Box/body' \(id 13\) is owned by both entries 'ids' and '{other.name}'",
    ):
        resolve_entries(model, admm(entry("ids", body_ids=per_world(3)), other))


def joint_proxy_cfg(joints, bodies=(".*/Robot",), source=(".*/Robot",)):
    return CouplerProxyCfg(
        entries=[
            entry("robot", bodies=list(source), include_static_shapes=True),
            entry("cloth", VBDSolverCfg(), all_particles=True),
        ],
        proxies=[CouplerProxyMappingCfg(source="robot", destination="cloth", bodies=list(bodies), joints=list(joints))],
    )


def test_proxy_joints_resolve_like_bodies(model):
    plan = resolve_coupling(model, joint_proxy_cfg([r".*/Robot/hinge\d"]), warn=False)
    assert plan.proxies[0].joints == per_world(1, 2)
    plan = resolve_coupling(model, joint_proxy_cfg([1, "/World/envs/env_3/Robot/hinge2"]), warn=False)
    assert plan.proxies[0].joints == [1, 3 * STRIDE + 2]
    assert plan.proxies[0].bodies == per_world(0, 1, 2)


@pytest.mark.parametrize(
    ("joints", "kwargs", "match"),
    [
        (["nope"], {}, r"proxies\[0\]\.joints\[0\]='nope' matches no joint label"),
        ([99], {}, r"proxies\[0\]\.joints\[0\]=99 is out of range: the model has 20 joints"),
        (
            [3],
            {},
            r"proxies\[0\]\.joints: joint '/World/envs/env_0/Box/body.*' \(id 3\) is not owned by the source entry 'robot'",
        ),
        (
            [".*/Robot"],
            {},
            r"proxies\[0\]\.joints: joint '/World/envs/env_0/Robot/root_joint' \(id 0\) is a FREE joint; proxy joints "
            r"must be FIXED, PRISMATIC, REVOLUTE",
        ),
        (
            [1],
            {"bodies": [".*/Robot/base"]},
            r"proxies\[0\]\.joints: joint '/World/envs/env_0/Robot/hinge1' \(id 1\) connects body "
            r"'/World/envs/env_0/Robot/link1' \(id 1\), which the destination entry 'cloth' does not see",
        ),
    ],
)
def test_proxy_joint_errors_name_the_mapping_and_the_joint(model, joints, kwargs, match):
    cfg = joint_proxy_cfg(joints, **kwargs)
    before = repr(cfg.to_dict())
    with pytest.raises(ValueError, match=match):
        resolve_coupling(model, cfg, warn=False)
    assert repr(cfg.to_dict()) == before


def _show_view(view):
    return None


def test_report_shows_ids_view_settings_hooks_and_proxy_joints(model):
    from isaaclab_contrib.coupling.report import ownership_report

    cfg = CouplerProxyCfg(
        entries=[
            entry(
                "robot",
                bodies=[".*/Robot"],
                body_ids=per_world(3),
                include_static_shapes=True,
                post_build=lambda solver, view: None,
            ),
            entry(
                "cloth",
                VBDSolverCfg(),
                all_particles=True,
                hide_elements=["springs", "edges"],
                configure_view=_show_view,
            ),
        ],
        proxies=[
            CouplerProxyMappingCfg(
                source="robot", destination="cloth", bodies=[".*/Robot"], joints=[r".*/env_0/Robot/hinge\d"]
            )
        ],
        update_joint_coordinates=True,
        post_build=print,
    )
    report = ownership_report(model, cfg)
    assert "  bodies by id: 4 [/World/envs/env_0/Box/body, /World/envs/env_1/Box/body" in report
    assert (
        "  post_build: test_ownership.test_report_shows_ids_view_settings_hooks_and_proxy_joints.<locals>.<lambda>"
        in report
    )
    assert "  view hides: springs, edges" in report
    assert "  configure_view: test_ownership._show_view" in report
    assert (
        "Proxy robot -> cloth (lagged): 12 bodies [/World/envs/env_0/Robot/base, /World/envs/env_0/Robot/link1, "
        "/World/envs/env_0/Robot/link1/link2 ... (+9)], 2 proxy joints [/World/envs/env_0/Robot/hinge1, "
        "/World/envs/env_0/Robot/hinge2], 0 particles"
    ) in report
    assert "Joint coordinates recomputed from body poses after every step (update_joint_coordinates)" in report
    assert "Coupler post_build: print" in report
