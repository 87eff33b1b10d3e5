"""The magics' fixtures (an IPython shell with `%mewrk`), for tests that compare both surfaces."""

from tests.magics.conftest import ip, mewrk

__all__ = ["ip", "mewrk"]
