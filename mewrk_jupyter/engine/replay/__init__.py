"""Replay (#38): a recorded session asked again of another model or agent, compared turn by turn, and
kept as a regression test (`mw.replay_check`)."""
