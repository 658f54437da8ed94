"""Small modal questions that float over the screen: a line of text, a choice, a confirmation, a pick.

Every string a dialog shows may come from a plan file, so each one goes in as
inert `Content` (`look.plain`), never as markup. Plan text never moves what the person acts on: the
title is one line, the text above the controls is a box of bounded height that scrolls, and an
option (or a line of a confirmation) is one paragraph, shown whole, so a planted title, question or
option cannot push the real options, field and keys off the screen and draw its own in their place.
"""

from __future__ import annotations

from typing import Any, Sequence

from leafwise.canvas.look import plan_text, safe
from leafwise.commands.text import counted_blanks, one_line, paragraph
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

# `body`: how much of the screen's height a dialog's plan text may take; the rest is its controls (on
# 80x24: a list of 30vh, a field of 3 rows, the hints), which plan text never pushes out of the box.
DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 80; max-width: 95%; height: auto; max-height: 100%; padding: 1 2;
    background: $panel; border: round {border};
}}
{name} .prompt-title {{ text-style: bold; margin-bottom: 1; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }}
{name} .prompt-question {{ margin-bottom: 1; }}
{name} .prompt-hint {{ color: $text-muted; margin-top: 1; }}
{name} .prompt-error {{ color: $error; display: none; }}
{name} .prompt-error.-shown {{ display: block; }}
{name} .prompt-body {{ height: auto; max-height: {body}; margin-bottom: 1; }}
{name} .prompt-body > .prompt-question {{ margin-bottom: 0; }}
{name} OptionList {{ height: auto; max-height: 30vh; }}
"""
TITLE_LIMIT = 200  # a dialog's title is context (what the body and the field act on), one line


def title_line(text: str) -> Content:
    """A dialog's title: plan text on one line, cut."""
    return Content(one_line(text, TITLE_LIMIT))


def whole(text: object) -> Content:
    """Plan text the person consents to (an option, a line of a confirmation): one paragraph, never cut,
    a long run of blanks shown as its count, so no part of it is drawn out of sight."""
    return plan_text(paragraph(counted_blanks(str(text if text is not None else ""))))


def flattened(content: Content) -> Content:
    """Built Content as one paragraph: its line breaks as spaces (the same length, so every span stays);
    plain text goes through `whole` instead, which also counts runs of blanks."""
    text = content.plain
    return Content(text.replace("\n", " "), content.spans) if "\n" in text else content


def body(content: Content) -> VerticalScroll:
    """Plan text above a dialog's controls: as tall as it is, up to `.prompt-body`'s bound, then it scrolls."""
    return VerticalScroll(Static(content, classes="prompt-question"), classes="prompt-body", can_focus=False)


def shown_in_input(text: str) -> str:
    """Plan text as an input field shows it: inert, as the tree shows it (ESC as ␛, a zero-width or bidi
    character as <U+200B>, a line break as a space). Textual's `Input` draws its value as it is, so a raw
    ESC in it would reach the terminal."""
    return safe(text, newlines=False)


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Esc goes back. Empty text is refused when required.

    `value` (plan text, untrusted) is shown inert (`shown_in_input`). Enter on the text as shown, not
    changed, answers `value` itself, exactly: the visible stand-ins for hidden characters never
    overwrite the real text, and a caller comparing the answer with `value` writes nothing. Once the
    person changes the text, the answer is what they typed.
    """

    DEFAULT_CSS = DIALOG_CSS.format(name="TextPrompt", border="$primary", body="40vh")
    BINDINGS = [Binding("escape", "cancel", "Back", id="dialog.cancel")]

    def __init__(self, title: str, prompt: str, *, value: str = "", placeholder: str = "",
                 required: bool = True, hint: str = "Enter to confirm · Esc to go back without a change") -> None:
        super().__init__()
        self.hint = hint
        self.title_text = title
        self.prompt = prompt
        self.value = value
        self.shown = shown_in_input(value)
        self.placeholder = placeholder
        self.required = required

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(title_line(self.title_text), classes="prompt-title")
            yield body(plan_text(self.prompt))
            yield Input(self.shown, placeholder=self.placeholder, id="prompt-input")
            if self.shown != self.value:
                yield Static("Hidden characters are shown visibly here; Enter without a change keeps the text "
                             "as it is.", classes="prompt-hint")
            yield Static("Please write something: it is recorded with the change.", classes="prompt-error")
            yield Static(Content(self.hint), classes="prompt-hint")

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        event.stop()
        if self.value and event.value == self.shown:  # not changed: the text as it is, never its visible stand-ins
            self.dismiss(self.value)
            return
        text = event.value.strip()
        if self.required and not text:
            self.query_one(".prompt-error").add_class("-shown")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoicePrompt(ModalScreen[int | None]):
    """Pick one of numbered options (1-based); digits or Enter pick, Esc goes back."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ChoicePrompt", border="$status-decision", body="20vh")
    BINDINGS = [Binding("escape,q", "cancel", "Back", id="dialog.cancel"),
                Binding("j", "cursor('down')", "Down", show=False),
                Binding("k", "cursor('up')", "Up", show=False)] + [
        Binding(str(n), f"pick({n})", f"Option {n}", show=False) for n in range(1, 10)]

    def __init__(self, title: str, question: str, options: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(title_line(self.title_text), classes="prompt-title")
            yield body(plan_text(self.question, "bold"))
            yield OptionList(*[Option(Content.assemble((f" {i} ", "reverse $status-decision"), " ",
                                                       whole(text)),
                                      id=str(i)) for i, text in enumerate(self.options, 1)])
            yield Static("↑↓ j k and Enter, or the option's number · Esc to go back", classes="prompt-hint")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_cursor(self, where: str) -> None:
        listing = self.query_one(OptionList)
        listing.action_cursor_down() if where == "down" else listing.action_cursor_up()

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(self.options):
            self.dismiss(number)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmPrompt(ModalScreen[str | None]):
    """Show what will happen and ask to confirm, with an optional note.

    Answers the note ("" when none) on Enter, None on Esc.
    """

    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmPrompt", border="$status-decision", body="50vh")
    BINDINGS = [Binding("escape", "cancel", "Back", id="dialog.cancel")]

    def __init__(self, title: str, lines: Sequence[Content | str], *, note_placeholder: str = "a note (optional)",
                 confirm: str = "Enter to confirm") -> None:
        super().__init__()
        self.title_text = title
        self.lines = [flattened(line) if isinstance(line, Content) else whole(line) for line in lines]
        self.note_placeholder = note_placeholder
        self.confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(title_line(self.title_text), classes="prompt-title")
            yield body(Content("\n").join(self.lines))
            yield Input(placeholder=self.note_placeholder, id="prompt-input")
            yield Static(f"{self.confirm} · Esc to go back without a change", classes="prompt-hint")

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickPrompt(ModalScreen[Any]):
    """Choose one of many items (a parent, a release, a dependency), filtering as you type.

    `items` are (value, label) pairs; the answer is the value, or None on Esc.
    """

    DEFAULT_CSS = DIALOG_CSS.format(name="PickPrompt", border="$primary", body="15vh") + \
        "PickPrompt OptionList { height: 30vh; }\n"
    BINDINGS = [Binding("escape", "cancel", "Back", id="dialog.cancel"),
                Binding("down", "cursor('down')", "Down", show=False, priority=True),
                Binding("up", "cursor('up')", "Up", show=False, priority=True)]
    SHOWN = 200  # items listed at once; typing narrows the rest

    NARROW = "type to narrow: id or words"

    def __init__(self, title: str, items: Sequence[tuple[Any, str]], *, prompt: str = "",
                 narrow: str = NARROW) -> None:
        super().__init__()
        self.title_text = title
        self.narrow = narrow  # the input's placeholder: what typing narrows by
        self.items = list(items)
        self.prompt = prompt
        self._shown: list[tuple[Any, str]] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(title_line(self.title_text), classes="prompt-title")
            if self.prompt:
                yield body(plan_text(self.prompt))
            yield Input(placeholder=self.narrow, id="prompt-input")
            yield OptionList(id="pick-list")
            yield Static("↑↓ then Enter to choose · Esc to go back", classes="prompt-hint")

    def on_mount(self) -> None:
        self._fill("")

    @on(Input.Changed)
    def narrowed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        needle = query.strip().casefold()
        found = [item for item in self.items if needle in item[1].casefold()] if needle else self.items
        # An exact id (the label's first word) comes first.
        found = sorted(found, key=lambda item: item[1].split(" ", 1)[0].casefold() != needle) if needle else found
        self._shown = found[: self.SHOWN]
        listing = self.query_one("#pick-list", OptionList)
        listing.set_options([Option(plan_text(one_line(label, 120))) for _, label in self._shown])
        if self._shown:
            listing.highlighted = 0

    def action_cursor(self, where: str) -> None:
        listing = self.query_one("#pick-list", OptionList)
        listing.action_cursor_down() if where == "down" else listing.action_cursor_up()

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        event.stop()
        index = self.query_one("#pick-list", OptionList).highlighted
        if index is not None and index < len(self._shown):
            self.dismiss(self._shown[index][0])

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self._shown):
            self.dismiss(self._shown[event.option_index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
