"""The trial's header line and, from the lead time, its banner and bell: export the report now, back up now.

The header line shows the time left and the cost so far at the list price whenever a trial is set
(`cardbench trial`); the widget is hidden when none is. From ``lead_hours`` before the end a second line
asks, in words as well as colour (NO_COLOR keeps the '!!'), to export the report (e) and back up (b),
and the terminal bell rings once as the lead time begins. Its "(e)" and "(b)" are also links to the
app's ``export`` and ``backup`` actions, the same ones the keys run, so a mouse works too.

The clock and the config reader are injected: the tests run a trial that ends in three minutes on a
fake clock. The config file is re-read now and then, so `cardbench trial` in another shell reaches an
open workbench.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from textual.content import Content
from textual.markup import escape
from textual.widgets import Static

if TYPE_CHECKING:
    from tui.trial.clock import Clock, TrialStatus
    from tui.trial.config import TrialConfig

REFRESH_S = 1.0
RELOAD_EVERY = 15   # ticks between reads of the config file


class TrialBanner(Static):
    """Time left and cost so far; from the lead time a banner with its two keys, and one bell."""

    DEFAULT_CSS = """
    TrialBanner { height: auto; padding: 0 1; color: $text-muted; }
    TrialBanner.-lead { background: $warning 30%; color: $text; text-style: bold; }
    TrialBanner.-ended { background: $error 40%; color: $text; text-style: bold; }
    """

    def __init__(self, *, clock: Clock = time.time, load: Callable[[], TrialConfig] | None = None,
                 refresh_s: float = REFRESH_S, **kwargs: Any) -> None:
        """``load``: the trial's settings (default: `cardbench trial`'s config file)."""
        super().__init__("", **kwargs)
        self.clock = clock
        self.load = load or _load_quietly
        self.refresh_s = refresh_s
        self.config: TrialConfig | None = None   # none read yet: nothing shown
        self.state: TrialStatus | None = None
        self.rang = False          # the bell rings once per lead time, not every second of it
        self._ticks = 0
        self._shown: tuple[str, ...] = ()
        self.display = False

    def on_mount(self) -> None:
        # after the first frame: the trial modules and the file's read are not what it waits for (the banner,
        # hidden without a trial, shows one refresh later)
        self.call_after_refresh(self.tick)   # its first tick reads the settings
        self.set_interval(self.refresh_s, self.tick)

    def reload(self) -> None:
        """Read the config again (after `cardbench trial`, or a new --backup-dest) and redraw."""
        self.config = self.load()
        self._ticks = 0
        self.tick()

    def tick(self) -> None:
        if self.config is None:
            self.reload()   # the first read (reload ticks)
            return
        from tui.trial.clock import status

        self._ticks += 1
        if self._ticks > RELOAD_EVERY:
            # the file is read off the UI thread (a slow or network home directory must not freeze the keys);
            # the banner goes on from the config it has until the read comes back
            self._ticks = 0
            self.run_worker(self._read_again, thread=True, group="trial-config", exit_on_error=False,
                            description="re-reading the trial settings")
        self.state = status(self.config, self.clock())
        self._show(self.state)

    def _read_again(self) -> None:
        config = self.load()
        self.app.call_from_thread(self._read, config)

    def _read(self, config: TrialConfig) -> None:
        if self.is_attached:
            self.config = config
            self.tick()

    def _show(self, state: TrialStatus | None) -> None:
        from tui.trial.clock import banner_text, header_text

        if state is None:
            self.display = False
            self.rang = False
            self._shown = ()
            return
        width = self.app.size.width - 2 if self.app.size.width > 2 else None   # the padding's two columns
        lines = (header_text(state, width),) + ((banner_text(state),) if state.in_lead else ())
        self.set_class(state.in_lead and not state.ended, "-lead")
        self.set_class(state.ended, "-ended")
        self.display = True
        if state.in_lead and not self.rang:
            self.rang = True
            self.app.bell()
        elif not state.in_lead:
            self.rang = False   # the end moved out (a new --ends): the next lead time rings again
        if lines != self._shown:
            self._shown = lines
            self.update(_content(lines))


def _load_quietly() -> TrialConfig:
    from tui.trial.config import load_quietly

    return load_quietly()


def _content(lines: tuple[str, ...]) -> Content:
    markup = escape(lines[0])
    if len(lines) > 1:
        # the keys as links to the actions the keys run: '(e)' and '(b)' are the only places they appear
        banner = escape(lines[1]).replace("(e)", "[@click=app.export](e)[/]").replace("(b)", "[@click=app.backup](b)[/]")
        markup += "\n" + banner
    return Content.from_markup(markup)
