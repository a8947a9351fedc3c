import copy

import pytest

from isaaclab_contrib.utils.configclass import MISSING, MissingFieldError, configclass, is_configclass


@configclass
class InnerCfg:
    gain: float = 1.0
    """A gain [N/m]."""
    tags: list[str] = ["a"]


@configclass
class OuterCfg:
    name: str = MISSING
    inner: InnerCfg = InnerCfg()
    values: dict[str, int] = {"x": 1}
    count: int = 3


def test_mutable_defaults_are_per_instance():
    a, b = OuterCfg(name="a"), OuterCfg(name="b")
    a.inner.tags.append("z")
    a.values["y"] = 2
    assert b.inner.tags == ["a"]
    assert b.values == {"x": 1}
    assert a.inner is not b.inner


def test_missing_is_reported_by_name_including_nested():
    cfg = OuterCfg()
    assert cfg.name is MISSING
    with pytest.raises(MissingFieldError, match=r"name"):
        cfg.validate()
    cfg.name = "ok"
    cfg.inner.gain = MISSING
    with pytest.raises(MissingFieldError, match=r"inner\.gain"):
        cfg.validate()


def test_to_dict_replace_copy():
    cfg = OuterCfg(name="n", count=5)
    assert cfg.to_dict() == {"name": "n", "inner": {"gain": 1.0, "tags": ["a"]}, "values": {"x": 1}, "count": 5}
    changed = cfg.replace(count=7)
    assert changed.count == 7 and cfg.count == 5
    assert changed.inner is not cfg.inner
    with pytest.raises(TypeError, match="unknown field"):
        cfg.replace(bogus=1)
    clone = cfg.copy()
    clone.inner.tags.append("q")
    assert cfg.inner.tags == ["a"]


def test_a_plain_deepcopy_keeps_unset_fields_unset_and_shares_nothing():
    """``copy.deepcopy`` (what gymnasium, rsl-rl and users call) keeps MISSING itself, as ``copy()`` does: the copy
    still reports its unset fields by name, and code that checks ``value is MISSING`` still sees them unset."""
    cfg = OuterCfg()
    cfg.inner.gain = MISSING
    shared = ["s"]
    cfg.values = {"a": shared, "b": shared}
    clone = copy.deepcopy(cfg)
    assert type(clone) is OuterCfg and clone.name is MISSING and clone.inner.gain is MISSING
    with pytest.raises(MissingFieldError, match=r"name, inner\.gain"):
        clone.validate()
    assert clone.inner is not cfg.inner and clone.values["a"] is not shared
    assert clone.values["a"] is clone.values["b"]  # the memo keeps shared objects shared
    clone.inner.tags.append("q")
    assert cfg.inner.tags == ["a"]


def test_a_deepcopied_task_config_validates_and_fills_its_solver_like_the_original():
    """A task config whose solver is left unset (the env fills in the scene's coupler) validated after ``copy()``
    but not after ``copy.deepcopy``, which had turned MISSING into another object."""
    from isaaclab_contrib.coupling import CouplerProxyCfg
    from isaaclab_coupling_configs.lift_franka import LiftSoftEnvCfg

    cfg = copy.deepcopy(LiftSoftEnvCfg())
    assert cfg.sim.physics.solver_cfg is MISSING
    cfg.validate()
    assert isinstance(cfg.simulation_cfg().physics.solver_cfg, CouplerProxyCfg)


def test_keyword_only_and_detection():
    with pytest.raises(TypeError):
        OuterCfg("positional")
    assert is_configclass(OuterCfg) and is_configclass(OuterCfg(name="x"))
    assert not is_configclass(dict)


def test_subclass_inherits_and_overrides_defaults():
    @configclass
    class ChildCfg(OuterCfg):
        count: int = 9
        extra: list[int] = [1]

    child = ChildCfg(name="c")
    assert child.count == 9 and child.extra == [1] and child.inner.gain == 1.0
