"""Repository layout: ``configs/`` is the installed package ``isaaclab_coupling_configs`` (under that name only),
the package never imports it, scenes register themselves, and scripts run from any directory."""

import os
import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import isaaclab_contrib
import isaaclab_coupling_configs
from isaaclab_contrib.scenes import (
    SceneBaseCfg,
    SceneSpec,
    get_scene,
    register_scene,
    registered_scenes,
    scene_names,
    scene_sim,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = Path(isaaclab_contrib.__file__).resolve().parent
CONFIG_PACKAGE = "isaaclab_coupling_configs"


def package_modules() -> list[str]:
    """Every module of ``isaaclab_contrib`` (packages and plain modules), found on disk."""
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def run_python(code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run *code* in a fresh interpreter (from the repository root by default, which ``-c`` puts on ``sys.path``)."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow  # a fresh interpreter importing every module
def test_package_never_imports_the_configs():
    modules = package_modules()
    assert "isaaclab_contrib.scenes.registry" in modules and "isaaclab_contrib.utils.configclass" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('configs', {CONFIG_PACKAGE!r}))\n"
        "print('LEAKED', leaked)\n"
        "sys.exit(1 if leaked else 0)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_configs_folder_is_importable_under_its_package_name_only():
    assert Path(isaaclab_coupling_configs.__file__).resolve().parent == ROOT / "configs"
    # From the repository root, where `configs` is a folder on sys.path, the second name is refused.
    result = run_python("import configs")
    assert result.returncode != 0 and "import isaaclab_coupling_configs" in result.stderr, result.stderr
    assert (
        "." not in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["pythonpath"]
    )


def test_the_installed_package_list_names_every_package_folder():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join(path.parent.relative_to(PACKAGE_DIR.parent).parts)
        for path in PACKAGE_DIR.rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert set(setuptools["packages"]) == on_disk | {CONFIG_PACKAGE}, "update [tool.setuptools] packages"
    for package in on_disk:
        assert (PACKAGE_DIR.parent / package.replace(".", "/") / "__init__.py").exists(), package
    assert setuptools["package-dir"] == {CONFIG_PACKAGE: "configs"}


def test_scripts_do_not_touch_sys_path():
    for script in sorted((ROOT / "scripts").glob("*.py")):
        text = script.read_text()
        assert not re.search(r"sys\.path|PYTHONPATH", text), script.name
        assert not re.search(r"^\s*(import|from) configs\b", text, re.MULTILINE), script.name


def test_every_registered_scene_resolves_and_has_a_scene_base_cfg():
    names = scene_names()
    assert {"ant_on_hammock", "box_on_cloth", "box_on_cloth_admm", "grains_on_cloth", "tool_in_sand"} <= set(names)
    assert sorted(isaaclab_coupling_configs.SCENES) == names
    for name in names:
        spec = get_scene(name)
        assert isinstance(spec, SceneSpec) and isaaclab_coupling_configs.SCENES[name] is spec
        assert issubclass(spec.scene_cfg, SceneBaseCfg), name
        assert spec.scene_cfg.__module__.startswith(f"{CONFIG_PACKAGE}."), name
        scene = spec.scene_cfg(num_envs=2)
        assert scene.num_envs == 2 and scene.assets(), name
        scene.validate()
    with pytest.raises(KeyError, match="box_on_cloth_admm"):
        get_scene("no_such_scene")
    with pytest.raises(TypeError):
        isaaclab_coupling_configs.SCENES["new"] = get_scene("box_on_cloth")  # a read-only view


def test_the_configs_package_docstring_names_every_scene():
    documented = set(re.findall(r"``(\w+)``", isaaclab_coupling_configs.__doc__))
    assert set(scene_names()) <= documented, sorted(set(scene_names()) - documented)


def test_registering_a_different_spec_under_a_taken_name_raises():
    spec = get_scene("box_on_cloth")
    assert register_scene("box_on_cloth", spec) is spec  # the same spec again is a no-op
    other = SceneSpec(spec.scene_cfg, "another box")
    with pytest.raises(ValueError, match="box_on_cloth"):
        register_scene("box_on_cloth", other)
    assert get_scene("box_on_cloth") is spec
    assert "another box" not in [s.description for s in registered_scenes().values()]
    with pytest.raises(TypeError, match="must be a SceneBaseCfg subclass"):
        register_scene("not_a_scene", SceneSpec(dict, "a dict"))


def test_a_scene_states_its_timing_once_in_its_sim():
    """The timing of a ready scene lives in ``SceneSpec.sim``: stated only where it differs from the default,
    copied (never shared) for a device, and refused at registration when it is not a timing."""
    default = SceneSpec(get_scene("box_on_cloth").scene_cfg, "default timing")
    assert (default.sim.dt, default.sim.physics.decimation, default.sim.physics.num_substeps) == (1.0 / 240.0, 4, 1)
    spec = get_scene("softbody_dropping_to_cloth")
    assert (spec.sim.physics.decimation, spec.sim.physics.num_substeps) == (10, 1)
    sim = spec.simulation_cfg(device="cpu", dt=0.002, use_cuda_graph=False)
    assert (sim.dt, sim.physics.decimation, sim.physics.use_cuda_graph) == (0.002, 10, False)
    assert spec.sim.physics.use_cuda_graph and spec.sim.dt == pytest.approx(1.0 / 600.0)  # the spec is untouched
    assert get_scene("grains_on_cloth").sim.physics.num_substeps == 2
    scene_cfg = spec.scene_cfg
    with pytest.raises(TypeError, match=r"SceneSpec\.sim must be a SimulationCfg"):
        register_scene("bad_timing", SceneSpec(scene_cfg, "no timing", sim=None))
    with_solver = scene_sim()
    with_solver.physics.solver_cfg = scene_cfg(num_envs=1).coupler_cfg()
    with pytest.raises(ValueError, match=r"solver_cfg must stay unset"):
        register_scene("bad_timing", SceneSpec(scene_cfg, "a solver", sim=with_solver))
    with pytest.raises(ValueError, match=r"register_scene\('bad_timing'\): SceneSpec\.sim.*decimation must be >= 1"):
        register_scene("bad_timing", SceneSpec(scene_cfg, "zero decimation", sim=scene_sim(decimation=0)))
    assert "bad_timing" not in scene_names()


def test_the_cloth_fields_are_declared_once():
    """The cloth's fields and ranges live in PinnedClothCfg; scenes and tasks nest it instead of redeclaring them."""
    for path in sorted((ROOT / "configs").glob("*.py")):
        text = path.read_text()
        assert not re.search(r"^\s+(cloth|hammock)_\w+: ", text, re.MULTILINE), path.name
        assert not re.search(r"\.add_cloth_grid\(", text), path.name


@pytest.mark.slow  # one interpreter per module: ~30 s on a 2-core CPU
def test_every_package_module_imports_first_in_a_fresh_interpreter():
    """Importing any module on its own succeeds: no import cycle between the package's modules."""
    modules = package_modules()
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = dict(zip(modules, pool.map(lambda name: run_python(f"import {name}"), modules), strict=True))
    failed = {name: r.stderr.strip().splitlines()[-1:] for name, r in results.items() if r.returncode != 0}
    assert not failed, failed
