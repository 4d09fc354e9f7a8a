"""My account on the server (docs/protocol.md, section 21): who I am there (my player id and
handle) and what I may do: claim a handle, set a password, sign in on this machine with a handle
and password, export my data to a JSON file in the data folder, delete my account.

The screen only asks; the App (``AccountHost``: client.apps.app.RaceApp) holds the connection and the
key kept in ``player.json``. Every account request but ``register`` and ``sign_in`` needs a
registered player's session (a hello with the key), and a key the client registered is said only
at the next connection: so the screen, opened from the lobby (no race to lose), connects again
with the key when the session is still the anonymous one. A new key (``register``, ``sign_in``)
is kept, then said by connecting again; a deleted account's key is forgotten, and the client
races on anonymously, registering no new player by itself.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from i18n import N_, NP_, _
from protocol.errors import ErrorCode
from protocol.messages import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    ClaimHandle,
    DeleteAccount,
    Export,
    ExportData,
    Identity,
    Ok,
    Register,
    SetPassword,
    SignIn,
)
from protocol.names import clean_handle
from protocol.schema import Message

from ..data.userdata import write_private
from ..net.connection import ConnectError, ConnectionLost, ServerError
from ..net.errors import ERROR_TEXTS, error_text
from ..text.words import races as race_count
from ..widgets.keys_footer import KeysFooter
from .localized import LocalModalScreen, LocalScreen

HANDLE_FIELD_MAX: Final = 64
"""What ``claim_handle`` and ``sign_in`` carry at most (a handle itself has 3 to 24 characters)."""

PLAIN: Final[dict[str, str]] = {
    ErrorCode.BAD_KEY: N_(
        "The server no longer knows this machine's key (the account may have been deleted"
        " elsewhere): sign in again, or race anonymously"
    ),
    ErrorCode.HANDLE_TAKEN: N_(
        "Someone already holds the handle '{handle}', or one that looks just like it: try another"
    ),
    ErrorCode.BAD_HANDLE: N_("That handle will not do: {message}"),
    ErrorCode.BAD_CREDENTIALS: N_(
        "No player has that handle, or the password is wrong (the server never says which): check both and try again"
    ),
    ErrorCode.NOT_IDENTIFIED: N_(
        "The server does not take this session as your registered player ({message}):"
        " connect again as your player, or sign in"
    ),
    ErrorCode.RECORDS_UNAVAILABLE: N_(
        "The server's player records are unavailable (down for now, or this server"
        " keeps none): try again later. Racing works all the same"
    ),
    ErrorCode.RATE_LIMITED: N_("Too many tries: {message}"),
    ErrorCode.ALREADY_REGISTERED: N_("This session is your registered player's already"),
    ErrorCode.BAD_FIELD: N_("The server refused what was typed: {message}"),
}
"""The refusals of the account requests in plain words (``{message}``: the reason, client/net/errors.py)."""


def explain(error: ServerError, handle: str = "") -> str:
    """A refusal in words for the account screen's message line."""
    template = PLAIN.get(error.code)
    if template is not None:
        return _(template).format(message=error_text(error.code, error.message), handle=handle)
    if error.code in ERROR_TEXTS:
        return error_text(error.code, error.message)
    return _("The server refused it ({code}): {message}").format(code=error.code, message=error.message)


def password_problem(password: str, again: str) -> str | None:
    """What is wrong with a new password typed twice (None: nothing)."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return _("A password has {min} to {max} characters").format(min=PASSWORD_MIN, max=PASSWORD_MAX)
    if password != again:
        return _("The two passwords differ: type the same one twice")
    return None


def export_path(folder: Path, player: str, now: datetime) -> Path:
    """Where an export goes: the data folder, named for the player and the moment."""
    return folder / f"export-{player}-{now.strftime('%Y%m%d-%H%M%S')}.json"


@dataclass(frozen=True)
class Account:
    """Who the user is on the server the App races on, as the screen shows it."""

    server: str
    player: str | None
    """The session's player id (None: not connected)."""
    identified: bool
    """The session is the registered player's (a hello with the key)."""
    handle: str | None
    kept: str | None
    """The player id of the key this machine keeps for the server (None: no key)."""
    anonymous: bool = False
    """The user deleted their player on this server: the client registers none by itself."""

    @property
    def connected(self) -> bool:
        return self.player is not None

    @property
    def waiting_for_key(self) -> bool:
        """A key is kept but this session is not its player's yet: connecting again says it."""
        return self.connected and not self.identified and self.kept is not None


def who(account: Account) -> str:
    """The screen's lines about who I am."""
    if not account.connected:
        return _("Not connected to {server}: connect in the lobby first (Escape goes back)").format(
            server=account.server
        )
    if account.identified:
        handle = (
            _("handle @{handle}").format(handle=account.handle)
            if account.handle
            else _("no handle yet: claim one to sign in elsewhere")
        )
        return (
            _("You are player {player} on {server}").format(player=account.player, server=account.server)
            + "\n"
            + handle
        )
    if account.kept is not None:
        return _(
            "This machine keeps the key of player {kept}, but this session is anonymous"
            " ({player}): Use my player connects again with it"
        ).format(kept=account.kept, player=account.player)
    if account.anonymous:
        return _(
            "You race anonymously on {server} (you deleted your account here)\n"
            "Register makes a new player; Sign in comes back to one that has a handle and password"
        ).format(server=account.server)
    return _(
        "You race anonymously on {server}: the server registered no player for you\n"
        "Register to keep your history (the server must keep records), or sign in"
    ).format(server=account.server)


class AccountHost(Protocol):
    """What the account screen needs of the App."""

    def account(self) -> Account:
        """Who I am now on the server the App races on."""

    async def account_request(self, message: Message) -> Message:
        """Send an account request on the session (ServerError / ConnectionLost / TimeoutError)."""

    def keep_key(self, key: str | None) -> None:
        """Keep ``key`` for the server (None: forget the player, anonymous there from now on);
        OSError when the data folder cannot be written."""

    async def reconnect(self) -> str:
        """Connect again to the server, with the key kept for it; the lobby's line (ConnectError /
        ServerError)."""

    def data_folder(self) -> Path:
        """The client's data folder (exports go there)."""


Work = Coroutine[Any, Any, None]


class AccountScreen(LocalScreen[None]):
    """My player on the server: who I am, and the account's actions."""

    CSS_PATH = Path(__file__).with_name("account.tcss")
    # Below 78 columns (60x20 among them) the two columns cut their boxes' titles: one column there.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (78, "-wide")]  # noqa: RUF012 (Textual declares it so)

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", NP_("footer", "Back"))]

    def __init__(self, *, signing_in: bool = False) -> None:
        super().__init__()
        self.signing_in = signing_in
        """Opened to sign in (the lobby's "Sign in"): the handle field comes first."""
        self.busy = False
        self.state: Account | None = None
        """Who I am as last shown: read from the App when the screen opens and after each new
        connection, and changed by what the server answered (a handle claimed)."""
        self.exported: Path | None = None
        """The last export's file."""

    @property
    def host(self) -> AccountHost:
        return cast(AccountHost, self.app)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="account-body"):
            yield Label(_("My account"), id="account-title")
            yield Static("", id="who")
            yield Static("", id="account-status")
            with Horizontal(classes="buttons"):
                yield Button(_("Use my player"), id="use-key", variant="primary", compact=True)
                yield Button(_("Register"), id="register", variant="primary", compact=True)
            with Horizontal(id="account-columns"):
                with Vertical(classes="account-column"):
                    with Vertical(id="handle-box", classes="box mine") as box:
                        box.border_title = _("Handle: 3 to 24 characters")
                        with Horizontal(classes="row"):
                            yield Input(
                                placeholder=_("letters, digits, _ - ."),  # the whole rule fits the field at 80x24
                                id="handle",
                                max_length=HANDLE_FIELD_MAX,
                                compact=True,
                            )
                            yield Button(_("Claim"), id="claim", variant="success", compact=True)
                    with Vertical(id="password-box", classes="box mine") as box:
                        box.border_title = _("Password")
                        yield Input(
                            placeholder=_("new password ({n} or more)").format(n=PASSWORD_MIN),
                            id="password",
                            password=True,
                            compact=True,
                        )
                        with Horizontal(classes="row"):
                            yield Input(
                                placeholder=_("the same again"), id="password-again", password=True, compact=True
                            )
                            yield Button(_("Set password"), id="set-password", variant="success", compact=True)
                with Vertical(classes="account-column"):
                    with Vertical(id="sign-in-box", classes="box") as box:
                        box.border_title = _("Sign in on this machine")
                        yield Input(
                            placeholder=_("handle"), id="sign-in-handle", max_length=HANDLE_FIELD_MAX, compact=True
                        )
                        with Horizontal(classes="row"):
                            yield Input(placeholder=_("password"), id="sign-in-password", password=True, compact=True)
                            yield Button(_("Sign in"), id="sign-in", variant="success", compact=True)
                        yield Label(_("this machine becomes that player"), classes="note")
                    with Vertical(id="data-box", classes="box mine") as box:
                        box.border_title = _("My data")
                        with Horizontal(classes="row"):
                            yield Button(_("Export data"), id="export", compact=True)
                            yield Button(_("Delete account"), id="delete", variant="error", compact=True)
                        yield Label(_("exports go to the data folder"), classes="note")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.show_account(self.host.account())
        if self.state is not None and self.state.waiting_for_key:
            self._use_key()
        elif self.state is not None and not self.state.connected:
            self.show_status(_("Connect in the lobby first"), "error")
        elif self.signing_in:
            self.query_one("#sign-in-handle", Input).focus()
        elif self.state is not None and self.state.identified and self.state.handle is None:
            self.query_one("#handle", Input).focus()  # what a new player comes here for: Enter claims it

    def action_close(self) -> None:
        self.dismiss(None)

    # -- state ----------------------------------------------------------------------

    def show_account(self, account: Account) -> None:
        """Show who I am and enable what I may do."""
        self.state = account
        self.query_one("#who", Static).update(Content(who(account)))
        self.query_one("#use-key").display = account.waiting_for_key
        self.query_one("#register").display = account.connected and not account.identified and account.kept is None
        for box in self.query(".mine"):
            box.disabled = not account.identified
        self.query_one("#sign-in-box").disabled = not account.connected

    def show_status(self, text: str, kind: str = "info") -> None:
        """The message line (``kind``: info, error, good)."""
        status = self.query_one("#account-status", Static)
        status.update(Content(text))
        status.set_class(kind == "error", "error")
        status.set_class(kind == "good", "good")

    @property
    def status_text(self) -> str:
        return str(self.query_one("#account-status", Static).content)

    @property
    def who_text(self) -> str:
        return str(self.query_one("#who", Static).content)

    def _run(self, doing: str, work: Work) -> None:
        """Run one account action at a time, saying what it does."""
        if self.busy:
            work.close()
            return
        self.busy = True
        self.show_status(doing)
        self.run_worker(self._explained(work), group="account", exclusive=True, exit_on_error=False)

    async def _explained(self, work: Work) -> None:
        """The action, its failures in words."""
        try:
            await work
        except ServerError as error:
            self.show_status(explain(error, self.query_one("#handle", Input).value.strip()), "error")
        except ConnectionLost:
            self.show_status(_("The connection dropped before the server answered: try again"), "error")
        except TimeoutError:
            self.show_status(_("The server did not answer in time: try again"), "error")
        except ConnectError as error:
            self.show_status(_("Cannot connect again: {error}. The lobby keeps trying").format(error=error), "error")
        except OSError as error:
            self.show_status(
                _("Could not write in the data folder ({folder}): {error}").format(
                    folder=self.host.data_folder(), error=error
                ),
                "error",
            )
        finally:
            self.busy = False

    # -- connecting as my player ---------------------------------------------------------

    @on(Button.Pressed, "#use-key")
    def _use_key(self) -> None:
        self._run(
            _("Connecting again as your registered player…"), self._reconnect(_("You are your registered player now"))
        )

    async def _reconnect(self, good: str) -> None:
        """Connect again with the key kept now, and say who I am then."""
        try:
            await self.host.reconnect()
        finally:
            self.show_account(self.host.account())
        state = self.host.account()
        if state.identified or state.kept is None:
            self.show_status(good, "good")
        else:
            self.show_status(
                _(
                    "The server could not check your key now (its player records are unavailable): you race"
                    " anonymously this time; Use my player tries again"
                ),
                "error",
            )

    @on(Button.Pressed, "#register")
    def _register(self) -> None:
        self._run(_("Registering a player…"), self._do_register())

    async def _do_register(self) -> None:
        if self.host.account().kept is None:  # else the lobby's own registration finished meanwhile
            identity = await self.host.account_request(Register())
            if not isinstance(identity, Identity) or identity.key is None:
                raise ServerError("bad-reply", f"the server answered register with {identity.TYPE}")
            self.host.keep_key(identity.key)
        await self._reconnect(_("You are registered: your key is kept on this machine"))

    # -- the handle and the password ---------------------------------------------------------

    @on(Button.Pressed, "#claim")
    @on(Input.Submitted, "#handle")
    def _claim(self) -> None:
        wanted = self.query_one("#handle", Input).value.strip()
        try:
            clean_handle(wanted)  # the server's own rule: say what is wrong before asking
        except ValueError as error:
            self.show_status(_("That handle will not do: {message}").format(message=error), "error")
            return
        self._run(_("Claiming '{handle}'…").format(handle=wanted), self._do_claim(wanted))

    async def _do_claim(self, wanted: str) -> None:
        identity = await self.host.account_request(ClaimHandle(handle=wanted))
        if not isinstance(identity, Identity):
            raise ServerError("bad-reply", f"the server answered claim_handle with {identity.TYPE}")
        if self.state is not None:
            self.show_account(replace(self.state, handle=identity.handle))
        self.show_status(
            _("Your handle is @{handle}: set a password to sign in with it elsewhere").format(handle=identity.handle),
            "good",
        )

    @on(Button.Pressed, "#set-password")
    @on(Input.Submitted, "#password-again")
    def _set_password(self) -> None:
        first, again = self.query_one("#password", Input), self.query_one("#password-again", Input)
        problem = password_problem(first.value, again.value)
        if problem is not None:
            self.show_status(problem, "error")
            return
        password = first.value
        first.value = again.value = ""  # no password stays on the screen
        self._run(_("Setting the password…"), self._do_set_password(password))

    async def _do_set_password(self, password: str) -> None:
        reply = await self.host.account_request(SetPassword(password=password))
        if not isinstance(reply, Ok):
            raise ServerError("bad-reply", f"the server answered set_password with {reply.TYPE}")
        handle = self.state.handle if self.state is not None else None
        if handle:
            said = _("Password set: sign in on another machine with @{handle} and it").format(handle=handle)
        else:
            said = _("Password set: sign in on another machine once you claim a handle")
        self.show_status(said, "good")

    # -- signing in ----------------------------------------------------------------------------

    @on(Button.Pressed, "#sign-in")
    @on(Input.Submitted, "#sign-in-password")
    def _sign_in(self) -> None:
        handle = self.query_one("#sign-in-handle", Input).value.strip()
        secret = self.query_one("#sign-in-password", Input)
        if not handle:
            self.show_status(_("Type the handle you signed up with"), "error")
            return
        if not 1 <= len(secret.value) <= PASSWORD_MAX:
            self.show_status(_("Type that player's password (at most {n} characters)").format(n=PASSWORD_MAX), "error")
            return
        password, secret.value = secret.value, ""
        self._run(_("Signing in as '{handle}'…").format(handle=handle), self._do_sign_in(handle, password))

    async def _do_sign_in(self, handle: str, password: str) -> None:
        identity = await self.host.account_request(SignIn(handle=handle, password=password))
        if not isinstance(identity, Identity) or identity.key is None:
            raise ServerError("bad-reply", f"the server answered sign_in with {identity.TYPE}")
        self.host.keep_key(identity.key)
        await self._reconnect(
            _("Signed in: this machine is player {player} (@{handle}) here now").format(
                player=identity.player, handle=identity.handle
            )
        )

    # -- my data ---------------------------------------------------------------------------------

    @on(Button.Pressed, "#export")
    def _export(self) -> None:
        self._run(_("Asking the server for everything it keeps of you…"), self._do_export())

    async def _do_export(self) -> None:
        reply = await self.host.account_request(ExportData())
        if not isinstance(reply, Export):
            raise ServerError("bad-reply", f"the server answered export_data with {reply.TYPE}")
        try:
            data = json.loads(reply.data)
        except ValueError:
            raise ServerError("bad-reply", "the server's export is not JSON") from None
        player = self.state.player if self.state is not None and self.state.player else "player"
        path = export_path(self.host.data_folder(), player, datetime.now())
        write_private(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
        self.exported = path
        races = data.get("races", []) if isinstance(data, dict) else []
        if isinstance(data, dict) and data.get("truncated"):
            said = _("Your data ({races} on record, the newest that fit: the server keeps more) is in {path}")
        else:
            said = _("Your data ({races} on record) is in {path}")
        self.show_status(said.format(races=race_count(len(races)), path=path), "good")

    @on(Button.Pressed, "#delete")
    def _delete(self) -> None:
        state = self.state
        if state is None or not state.identified or self.busy:
            return

        def confirmed(sure: bool | None) -> None:
            if sure:
                self._run(_("Deleting your account…"), self._do_delete())
            else:
                self.show_status(_("Your account is kept"))

        self.app.push_screen(ConfirmDelete(state), confirmed)

    async def _do_delete(self) -> None:
        reply = await self.host.account_request(DeleteAccount())
        if not isinstance(reply, Ok):
            raise ServerError("bad-reply", f"the server answered delete_account with {reply.TYPE}")
        self.host.keep_key(None)
        await self._reconnect(_("Your account is deleted and its key forgotten: you race anonymously now"))


class ConfirmDelete(LocalModalScreen[bool]):
    """Are you sure? The deletion cannot be undone; Keep is the default."""

    CSS_PATH = Path(__file__).with_name("account.tcss")

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "keep", NP_("footer", "Keep my account"))]

    def __init__(self, account: Account) -> None:
        super().__init__()
        self.account = account

    def compose(self) -> ComposeResult:
        handle = f" (@{self.account.handle})" if self.account.handle else ""
        with Vertical(id="confirm-delete") as box:
            box.border_title = _("Delete my account")
            yield Static(
                _(
                    "Delete player {player}{handle} on {server}?\n\n"
                    "Its handle, password and keys go at once, on every machine; your races stay on record"
                    " as a “deleted player”. This cannot be undone: export your data first if you want it."
                ).format(player=self.account.player, handle=handle, server=self.account.server),
                id="confirm-text",
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Keep my account"), id="keep", variant="primary", compact=True)
                yield Button(_("Delete it"), id="confirm", variant="error", compact=True)

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_keep(self) -> None:
        self.dismiss(False)
