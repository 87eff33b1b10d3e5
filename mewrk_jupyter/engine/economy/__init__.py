"""Context economy (#39): the tool results that no longer serve, pruning them in one step, and what an
edit costs in the prompt cache before it lands."""
