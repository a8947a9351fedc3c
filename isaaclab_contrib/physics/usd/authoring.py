"""USD authoring without Kit: plain ``pxr`` edits of a stage before it is turned into a Newton model."""

from __future__ import annotations

from typing import Any

__all__ = ["fix_articulation_root"]


def fix_articulation_root(articulation_prim: Any, stage: Any = None, *, where: str = "fix_articulation_root") -> Any:
    """Ensure the articulation root has exactly one enabled world fixed joint, on a ``pxr`` USD stage.

    Kitless equivalent of the spec's method: it authors plain USD Physics prims. The root stays in
    place. An existing enabled ``UsdPhysics.FixedJoint`` from the world (no ``body0``) to the root is
    kept (further ones are disabled); without one, a ``RootFixedJoint`` child is authored.

    Args:
        articulation_prim: The articulation-root prim (a ``pxr.Usd.Prim`` or its path).
        stage: The stage holding it; defaults to the prim's stage.
        where: The caller named in error messages.

    Returns:
        The articulation-root prim.

    Raises:
        ValueError: No such prim.
        NotImplementedError: A new joint is needed and the root is not a rigid body
            (it has no ``UsdPhysics.RigidBodyAPI``).
    """
    from pxr import Sdf, Usd, UsdPhysics

    if isinstance(articulation_prim, Usd.Prim):
        prim = articulation_prim
    else:
        if stage is None:
            raise ValueError(f"{where}: give a stage (none is attached)")
        prim = stage.GetPrimAtPath(str(articulation_prim))
    if not prim or not prim.IsValid():
        raise ValueError(f"{where}: no prim at {articulation_prim!r}")
    stage = stage or prim.GetStage()
    root = prim.GetPath()
    world_joints = []
    for candidate in stage.Traverse():
        if not candidate.IsA(UsdPhysics.FixedJoint):
            continue
        joint = UsdPhysics.FixedJoint(candidate)
        body0, body1 = joint.GetBody0Rel().GetTargets(), joint.GetBody1Rel().GetTargets()
        enabled = joint.GetJointEnabledAttr().Get()
        if not body0 and list(body1) == [root] and enabled is not False:
            world_joints.append(joint)
    for extra in world_joints[1:]:
        extra.GetJointEnabledAttr().Set(False)
    if world_joints:
        return prim
    if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
        raise NotImplementedError(
            f"{where}: {root} needs a world fixed joint but is not a rigid body "
            "(no UsdPhysics.RigidBodyAPI); fix a rigid link instead"
        )
    name, k = "RootFixedJoint", 1
    while stage.GetPrimAtPath(root.AppendChild(name)):
        name, k = f"RootFixedJoint_{k}", k + 1
    joint = UsdPhysics.FixedJoint.Define(stage, Sdf.Path(root.AppendChild(name)))
    joint.CreateBody1Rel().SetTargets([root])
    joint.CreateJointEnabledAttr(True)
    return prim
