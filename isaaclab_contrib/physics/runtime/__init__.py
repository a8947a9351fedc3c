"""The runtime: the class-level manager front (:mod:`.newton_manager`), the per-context session
(the request object, :mod:`.session`), the simulation instance built from it
(:mod:`.simulation_instance`) and the typed step program it runs (:mod:`.step_program`)."""
