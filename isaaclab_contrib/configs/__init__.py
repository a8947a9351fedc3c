"""Ready coupled scenes: a scene builder plus coupler configs a task can copy."""
