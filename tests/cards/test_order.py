"""Order keys leave room for an insert anywhere, and plain string order is the timeline's order."""

import random

import pytest

from mewrk_jupyter.cards.order import key_between


def test_keys_sort_between_their_neighbours_under_random_inserts():
    rng = random.Random(7)
    keys = [key_between(None, None)]
    for _ in range(5000):
        i = rng.randint(0, len(keys))
        before = keys[i - 1] if i > 0 else None
        after = keys[i] if i < len(keys) else None
        key = key_between(before, after)
        assert before is None or before < key
        assert after is None or key < after
        keys.insert(i, key)
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_appends_and_prepends_keep_keys_short():
    keys = [key_between(None, None)]
    for _ in range(10_000):
        keys.append(key_between(keys[-1], None))
        keys.insert(0, key_between(None, keys[0]))
    assert keys == sorted(keys)
    assert max(len(k) for k in keys) == 8


def test_out_of_order_neighbours_are_refused():
    a = key_between(None, None)
    b = key_between(a, None)
    with pytest.raises(ValueError):
        key_between(b, a)
