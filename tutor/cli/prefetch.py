"""The tutor's next hint, computed while the player thinks (line mode with ``--tutor``).

With ``--tutor`` every move waits for the hint at its position, and early in a game that hint takes
seconds (up to 12 s in ``limited``, where most sampled deals are lost and each is searched for its best
score). Line mode starts it in a background thread as soon as the position is shown, so a player who
thinks for a while finds it ready; one who types at once waits only for what is left. The hint is the same
either way: it depends on the position alone.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..hints import Hint
    from ..state import State

__all__ = ["Prefetch"]


class Prefetch:
    """One hint being computed in a daemon thread (a quit never waits for it)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.hint: Hint | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="osmosis-next-hint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from ..advice import advise
        from ..knowledge import observe

        try:
            self.hint = advise(observe(self.state))
        except BaseException as exc:  # noqa: BLE001  (the position's own call computes it again, and says why)
            self.error = exc

    def result(self) -> Hint | None:
        """The hint, once the thread is done (waiting for it); None if it failed."""
        self.thread.join()
        return self.hint
