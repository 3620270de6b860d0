"""Catalogue module (entries are added as the mechanics layer lands)."""

__all__: list = []
