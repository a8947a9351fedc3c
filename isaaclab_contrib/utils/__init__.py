"""Utilities shared by the configs: ``@configclass``, field validation, script argument types."""
