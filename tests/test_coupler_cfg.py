"""Model-free validation of the coupler configs."""

import warnings

import pytest

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
)
from isaaclab_contrib.physics import MPMSolverCfg, NewtonModelCfg, SteelSolverCfg, VBDSolverCfg, resolve_class


def rigid(name="rigid", **kw):
    kw.setdefault("bodies", [".*/Box/body"])
    return CouplerEntryCfg(name=name, solver_cfg=SteelSolverCfg(), **kw)


def cloth(name="cloth", **kw):
    kw.setdefault("all_particles", True)
    return CouplerEntryCfg(name=name, solver_cfg=VBDSolverCfg(), **kw)


def test_valid_configs_pass():
    CouplerAdmmCfg(entries=[rigid(), cloth()], contact_pairs=[("rigid", "cloth")]).validate()
    CouplerProxyCfg(
        entries=[rigid(), cloth()], proxies=[CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=[0])]
    ).validate()


@pytest.mark.parametrize(
    ("entries", "exc", "match"),
    [
        ([], ValueError, r"CouplerAdmmCfg\.entries is empty"),
        ([rigid(name="")], ValueError, r"CouplerAdmmCfg\.entries\.name must be a non-empty"),
        ([rigid(name="a"), cloth(name="a")], ValueError, r"entry name 'a' is used more than once"),
        ([rigid(bodies="abc")], TypeError, r"entries\['rigid'\]\.bodies must be a list"),
        ([rigid(bodies=["("])], ValueError, r"entries\['rigid'\]\.bodies\[0\]='\(' is not a valid regular"),
        ([cloth(particles=[1.5], all_particles=False)], TypeError, r"entries\['cloth'\]\.particles\[0\]"),
        ([cloth(particles=[3], all_particles=True)], ValueError, r"entries\['cloth'\]: set either all_particles"),
        ([rigid(substeps=0)], ValueError, r"entries\['rigid'\]\.substeps must be >= 1"),
        ([rigid(include_body_shapes="yes")], TypeError, r"entries\['rigid'\]\.include_body_shapes must be a bool"),
        (["not an entry"], TypeError, r"CouplerAdmmCfg\.entries\[0\] must be a CouplerEntryCfg"),
        (
            [CouplerEntryCfg(name="x", solver_cfg="steel")],
            TypeError,
            r"entries\['x'\]\.solver_cfg must be a NewtonSolverCfg",
        ),
        ([CouplerEntryCfg(name="x")], ValueError, r"solver_cfg"),
        (
            [CouplerEntryCfg(name="r", solver_cfg=SteelSolverCfg(), bodies=[".*"], in_place=True)],
            ValueError,
            r"entries\['r'\]\.in_place=True, but SteelSolverCfg does not support",
        ),
    ],
)
def test_entry_errors(entries, exc, match):
    with pytest.raises(exc, match=match):
        CouplerAdmmCfg(entries=entries).validate()


def test_nested_coupler_is_rejected():
    inner = CouplerAdmmCfg(entries=[rigid(), cloth()])
    with pytest.raises(
        TypeError, match=r"entries\['nested'\]\.solver_cfg is a CouplerAdmmCfg: couplers cannot be nested"
    ):
        CouplerAdmmCfg(entries=[CouplerEntryCfg(name="nested", solver_cfg=inner, bodies=[".*"])]).validate()


@pytest.mark.parametrize("in_place", [True, False])
def test_mpm_in_place_or_not_is_accepted(in_place):
    CouplerAdmmCfg(
        entries=[CouplerEntryCfg(name="mpm", solver_cfg=MPMSolverCfg(), all_particles=True, in_place=in_place)]
    ).validate()


@pytest.mark.parametrize(
    ("pairs", "exc", "match"),
    [
        ([("rigid", "ghost")], ValueError, r"contact_pairs\[0\] names unknown entry 'ghost'"),
        ([("rigid", "rigid")], ValueError, r"contact_pairs\[0\]=\('rigid', 'rigid'\) names one entry twice"),
        ([("rigid", "cloth"), ("cloth", "rigid")], ValueError, r"contact_pairs\[1\].*more than once"),
        (["rigid"], TypeError, r"contact_pairs\[0\] must be a pair"),
        ("rigid-cloth", TypeError, r"contact_pairs must be a list"),
    ],
)
def test_contact_pair_errors(pairs, exc, match):
    with pytest.raises(exc, match=match):
        CouplerAdmmCfg(entries=[rigid(), cloth()], contact_pairs=pairs).validate()


def test_contact_pairs_none_means_all_pairs_and_empty_means_none():
    cfg = CouplerAdmmCfg(entries=[rigid("a"), cloth("b"), cloth("c", all_particles=False, particles=[0])])
    assert cfg.resolved_contact_pairs() == [("a", "b"), ("a", "c"), ("b", "c")]
    cfg.contact_pairs = []
    assert cfg.resolved_contact_pairs() == []


@pytest.mark.parametrize(
    ("field", "value", "exc", "match"),
    [
        ("rho", 0.0, ValueError, r"CouplerAdmmCfg\.rho must be > 0"),
        ("iterations", 0, ValueError, r"CouplerAdmmCfg\.iterations must be >= 1"),
        ("iterations", 2.5, TypeError, r"CouplerAdmmCfg\.iterations must be an integer"),
        ("gamma", float("nan"), ValueError, r"CouplerAdmmCfg\.gamma must not be NaN"),
        ("gamma", float("inf"), ValueError, r"CouplerAdmmCfg\.gamma must be finite"),
        ("rigid_contact_matching", "always", ValueError, r"rigid_contact_matching must be"),
        ("contact_matching_normal_dot_threshold", 2.0, ValueError, r"must be <= 1.0"),
        (
            "joint_proximal_destination_entries",
            ["ghost"],
            ValueError,
            r"joint_proximal_destination_entries\[0\]='ghost'",
        ),
        ("model_cfg", {"gravity": 1}, TypeError, r"model_cfg must be a NewtonModelCfg"),
    ],
)
def test_admm_parameter_errors(field, value, exc, match):
    cfg = CouplerAdmmCfg(entries=[rigid(), cloth()])
    setattr(cfg, field, value)
    with pytest.raises(exc, match=match):
        cfg.validate()


def test_proxy_errors():
    m = CouplerProxyMappingCfg
    cases = [
        (
            dict(proxies=[m(source="rigid", destination="ghost", bodies=[0])]),
            ValueError,
            r"proxies\[0\]\.destination='ghost'",
        ),
        (
            dict(proxies=[m(source="rigid", destination="rigid", bodies=[0])]),
            ValueError,
            r"proxies\[0\]: source and destination",
        ),
        (dict(proxies=[m(source="rigid", destination="cloth")]), ValueError, r"proxies\[0\]: a proxy mapping needs"),
        (dict(proxies=[m(source="rigid", destination="cloth", bodies=[1.0])]), TypeError, r"proxies\[0\]\.bodies\[0\]"),
        (
            dict(proxies=[m(source="rigid", destination="cloth", bodies=[0], mass_scale=0.0)]),
            ValueError,
            r"mass_scale must be > 0",
        ),
        (dict(proxies=[m(source="rigid", destination="cloth", bodies=[0], mode="eager")]), ValueError, r"mode must be"),
        (
            dict(proxies=[m(source="rigid", destination="cloth", bodies=[0], collide_interval=2)]),
            ValueError,
            r"collide_interval=2 needs collision_pipeline",
        ),
        (
            dict(
                proxies=[
                    m(
                        source="rigid",
                        destination="cloth",
                        bodies=[0],
                        proxy_relaxation_mode="aitken",
                        proxy_relaxation=2.0,
                    )
                ]
            ),
            ValueError,
            r"Aitken",
        ),
        (dict(iterations=0), ValueError, r"CouplerProxyCfg\.iterations must be >= 1"),
    ]
    for kwargs, exc, match in cases:
        with pytest.raises(exc, match=match):
            CouplerProxyCfg(entries=[rigid(), cloth()], **kwargs).validate()
    with pytest.raises(ValueError, match=r"CouplerProxyCfg\.entries has 3 entries.*at most 2"):
        CouplerProxyCfg(entries=[rigid("a"), rigid("b"), cloth()]).validate()


def test_solver_type_is_deprecated_metadata_and_class_type_resolves():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = CouplerAdmmCfg(entries=[rigid(), cloth()])  # the default does not warn
    with pytest.warns(DeprecationWarning, match="solver_type is deprecated"):
        cfg.solver_type = "admm"
    with pytest.warns(DeprecationWarning):
        CouplerProxyCfg(solver_type="proxy")
    assert resolve_class("isaaclab_contrib.physics:SteelSolverCfg", owner="X", field="f") is SteelSolverCfg
    assert resolve_class(SteelSolverCfg, owner="X", field="f") is SteelSolverCfg
    with pytest.raises(ValueError, match=r"X\.f='nomodule' is not of the form"):
        resolve_class("nomodule", owner="X", field="f")
    with pytest.raises(ValueError, match="has no attribute"):
        resolve_class("isaaclab_contrib.physics:Nope", owner="X", field="f")


def test_model_cfg_nested_validation():
    cfg = CouplerAdmmCfg(entries=[rigid(), cloth()], model_cfg=NewtonModelCfg(soft_contact_mu=-2.0))
    with pytest.raises(ValueError, match=r"NewtonModelCfg\.soft_contact_mu"):
        cfg.validate()


# ------------------------------------------------------------------ view, hooks, index selection, proxy joints
def _hook(view):
    return None


def _post_build(solver, view):
    return None


@pytest.mark.parametrize(
    ("field", "value", "exc", "match"),
    [
        ("body_ids", "3", TypeError, r"entries\['rigid'\]\.body_ids must be a list of integer indices"),
        ("body_ids", [1.5], TypeError, r"entries\['rigid'\]\.body_ids\[0\] must be an integer index"),
        ("body_ids", [True], TypeError, r"entries\['rigid'\]\.body_ids\[0\] must be an integer index"),
        ("body_ids", [-1], ValueError, r"entries\['rigid'\]\.body_ids\[0\]=-1 must be >= 0"),
        ("body_ids", [2, 2], ValueError, r"entries\['rigid'\]\.body_ids lists an index more than once"),
        ("hide_elements", "springs", TypeError, r"entries\['rigid'\]\.hide_elements must be a list of element kinds"),
        ("hide_elements", [3], TypeError, r"entries\['rigid'\]\.hide_elements\[0\] must be an element kind string"),
        ("hide_elements", ["cloth"], ValueError, r"hide_elements\[0\]='cloth' is not an element kind.*'springs'"),
        ("hide_elements", ["Springs"], ValueError, r"hide_elements\[0\]='Springs' is not an element kind"),
        ("hide_elements", ["edges", "edges"], ValueError, r"hide_elements lists an element kind more than once"),
        ("configure_view", 5, TypeError, r"entries\['rigid'\]\.configure_view must be a callable taking the entry's"),
        ("configure_view", "hide", TypeError, r"entries\['rigid'\]\.configure_view must be a callable"),
        ("configure_view", lambda: None, TypeError, r"entries\['rigid'\]\.configure_view=.*cannot be called with"),
        ("configure_view", _post_build, TypeError, r"configure_view=.*_post_build cannot be called with the entry's"),
        ("post_build", 5, TypeError, r"entries\['rigid'\]\.post_build must be a callable taking \(entry solver"),
        ("post_build", _hook, TypeError, r"entries\['rigid'\]\.post_build=.*_hook cannot be called with \(entry"),
    ],
)
def test_new_entry_field_errors(field, value, exc, match):
    cfg = CouplerAdmmCfg(entries=[rigid(), cloth()])
    setattr(cfg.entries[0], field, value)
    before = repr(cfg.to_dict())
    with pytest.raises(exc, match=match):
        cfg.validate()
    assert repr(cfg.to_dict()) == before


def test_new_entry_fields_accept_valid_values():
    import functools

    entry = rigid(
        body_ids=[0, 3],
        hide_elements=["springs", "triangles", "edges", "tetrahedra"],
        configure_view=_hook,
        post_build=_post_build,
    )
    CouplerAdmmCfg(entries=[entry, cloth(configure_view=lambda view, extra=None: None)]).validate()
    CouplerAdmmCfg(entries=[rigid(post_build=functools.partial(lambda tag, s, v: None, "tag"))]).validate()
    CouplerAdmmCfg(entries=[rigid(configure_view=print)]).validate()  # a builtin without a usable signature
    CouplerAdmmCfg(entries=[rigid(bodies=[], body_ids=[1])]).validate()  # ids alone select bodies


@pytest.mark.parametrize(
    ("value", "exc", "match"),
    [
        ("hook", TypeError, r"CouplerAdmmCfg\.post_build must be a callable taking \(coupled solver, model\)"),
        (_hook, TypeError, r"CouplerAdmmCfg\.post_build=.*_hook cannot be called with \(coupled solver, model\)"),
    ],
)
def test_coupler_post_build_errors(value, exc, match):
    with pytest.raises(exc, match=match):
        CouplerAdmmCfg(entries=[rigid(), cloth()], post_build=value).validate()
    CouplerAdmmCfg(entries=[rigid(), cloth()], post_build=_post_build, update_joint_coordinates=True).validate()
    with pytest.raises(TypeError, match=r"CouplerProxyCfg\.update_joint_coordinates must be a bool"):
        CouplerProxyCfg(entries=[rigid(), cloth()], update_joint_coordinates=1).validate()


@pytest.mark.parametrize(
    ("joints", "exc", "match"),
    [
        ("hinge", TypeError, r"proxies\[0\]\.joints must be a list of joint-label regexes or joint ids"),
        ([1.0], TypeError, r"proxies\[0\]\.joints\[0\] must be a joint-label regex or a joint id, got float"),
        ([True], TypeError, r"proxies\[0\]\.joints\[0\] must be a joint-label regex or a joint id, got bool"),
        ([-2], ValueError, r"proxies\[0\]\.joints\[0\]=-2 must be >= 0"),
        (["("], ValueError, r"proxies\[0\]\.joints\[0\]='\(' is not a valid regular expression"),
        ([4, ".*", 4], ValueError, r"proxies\[0\]\.joints lists a joint id more than once"),
    ],
)
def test_proxy_joint_errors(joints, exc, match):
    cfg = CouplerProxyCfg(
        entries=[rigid(), cloth()],
        proxies=[CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=[0], joints=joints)],
    )
    with pytest.raises(exc, match=match):
        cfg.validate()


def test_proxy_mapping_of_joints_only_is_valid_and_an_empty_one_is_not():
    joints_only = CouplerProxyMappingCfg(source="rigid", destination="cloth", joints=[".*/hinge", 2])
    CouplerProxyCfg(entries=[rigid(), cloth()], proxies=[joints_only]).validate()
    with pytest.raises(ValueError, match=r"proxies\[0\]: a proxy mapping needs at least one body, particle or joint"):
        CouplerProxyCfg(
            entries=[rigid(), cloth()], proxies=[CouplerProxyMappingCfg(source="rigid", destination="cloth")]
        ).validate()
