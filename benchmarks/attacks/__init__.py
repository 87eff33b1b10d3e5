"""One module per attack for bench_attacks.py: ATTACK (a sentence), TRIALS, and trial(folder) -> bool."""
