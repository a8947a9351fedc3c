"""Repository layout: the package never imports the top-level ``configs``; scenes register themselves."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import configs
import isaaclab_contrib
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, get_scene, register_scene, registered_scenes, scene_names

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = Path(isaaclab_contrib.__file__).resolve().parent


def package_modules() -> list[str]:
    """Every module of ``isaaclab_contrib`` (packages and plain modules), found on disk."""
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def run_python(code: str) -> subprocess.CompletedProcess:
    """Run *code* in a fresh interpreter from the repository root, where ``import configs`` would succeed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_package_never_imports_configs():
    modules = package_modules()
    assert "isaaclab_contrib.scenes.registry" in modules and "isaaclab_contrib.utils.configclass" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'configs' or m.startswith('configs.'))\n"
        "print('LEAKED', leaked)\n"
        "sys.exit(1 if leaked else 0)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_registered_scene_resolves_and_has_a_scene_base_cfg():
    names = scene_names()
    assert {"ant_on_hammock", "box_on_cloth", "box_on_cloth_admm", "grains_on_cloth", "tool_in_sand"} <= set(names)
    assert sorted(configs.SCENES) == names
    for name in names:
        spec = get_scene(name)
        assert isinstance(spec, SceneSpec) and configs.SCENES[name] is spec
        assert issubclass(spec.scene_cfg, SceneBaseCfg), name
        assert spec.scene_cfg(num_envs=2).num_envs == 2
    with pytest.raises(KeyError, match="box_on_cloth_admm"):
        get_scene("no_such_scene")
    with pytest.raises(TypeError):
        configs.SCENES["new"] = get_scene("box_on_cloth")  # a read-only view


def test_registering_a_different_spec_under_a_taken_name_raises():
    spec = get_scene("box_on_cloth")
    assert register_scene("box_on_cloth", spec) is spec  # the same spec again is a no-op
    other = SceneSpec("another box", spec.scene_cfg, spec.build, spec.coupler)
    with pytest.raises(ValueError, match="box_on_cloth"):
        register_scene("box_on_cloth", other)
    assert get_scene("box_on_cloth") is spec
    assert "another box" not in [s.description for s in registered_scenes().values()]


@pytest.mark.slow  # one interpreter per module: ~30 s on a 2-core CPU
def test_every_package_module_imports_first_in_a_fresh_interpreter():
    """Importing any module on its own succeeds: no import cycle between the package's modules."""
    modules = package_modules()
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = dict(zip(modules, pool.map(lambda name: run_python(f"import {name}"), modules), strict=True))
    failed = {name: r.stderr.strip().splitlines()[-1:] for name, r in results.items() if r.returncode != 0}
    assert not failed, failed
