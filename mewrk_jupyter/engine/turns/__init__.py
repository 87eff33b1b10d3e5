"""Turns: runs and their tool loop, the pure fold of a model's stream into cards, approvals, hand-run tools."""
