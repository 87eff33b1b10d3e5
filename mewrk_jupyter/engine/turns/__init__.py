"""Turns: runs and their tool loop over the toolbox, the pure fold of a model's stream into cards,
approvals, hand-run tools, and what each request sent."""
