"""The Textual application of the terminal game."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from .controller import Controller, Options
from .dialogs import QuitScreen
from .setup_screen import SetupScreen
from .table_screen import TableScreen


class YanivApp(App[None]):
    """Yaniv against the computer. ``start=True`` skips the setup screen (tests, flags)."""

    CSS_PATH = "yaniv.tcss"
    TITLE = "Yaniv"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+q,ctrl+c", "request_quit", "quit", show=False, priority=True)]

    def __init__(
        self,
        options: Options | None = None,
        *,
        start: bool = False,
        controller: Controller | None = None,
    ) -> None:
        super().__init__()
        self.options = options or Options()
        self.start_at_table = start
        self.resumed = controller

    def on_mount(self) -> None:
        """Open the setup screen, the table at once, or the table of a resumed game."""
        if self.resumed is not None:
            self.push_screen(TableScreen(self.resumed))
        elif self.start_at_table:
            self.push_screen(TableScreen(Controller(self.options)))
        else:
            self.push_screen(SetupScreen(self.options))

    def on_setup_screen_start(self, event: SetupScreen.Start) -> None:
        """The setup screen's Enter: open the table."""
        self.switch_screen(TableScreen(Controller(event.options)))

    def on_table_screen_new_game(self, event: TableScreen.NewGame) -> None:
        """After a game: a new one at once, or the setup screen to change it first."""
        if event.setup:
            self.switch_screen(SetupScreen(event.options))
        else:
            self.switch_screen(TableScreen(Controller(event.options)))

    @property
    def controller(self) -> Controller | None:
        """The game being played, if any."""
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                return screen.controller
        return None

    @property
    def record_path(self) -> Path | None:
        """Where the current game's record is saved."""
        controller = self.controller
        return None if controller is None else controller.record_path

    def action_request_quit(self) -> None:
        """Ask before quitting; the game so far is saved."""
        if isinstance(self.screen, QuitScreen):
            return
        question = "Quit Yaniv?" if self.controller is None else None
        self.push_screen(QuitScreen(question) if question else QuitScreen(), self._quit_answer)

    def _quit_answer(self, quit_: bool | None) -> None:
        if quit_:
            controller = self.controller
            if controller is not None:
                controller.save()
            self.exit()
