"""Brackets, distributions, Lie algebras, actions, reduction; knows no Lagrangians."""
