"""Background work: the tasks a session starts beside its turn (commands, subagents), their rows in the
store, the heartbeat that tells a live owner from a crashed one, and the results delivered to the model."""
