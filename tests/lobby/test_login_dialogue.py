"""The login and registration dialogue, pure: every path from the first line to `LogIn` or
`Close`, with the results of the server's steps fed in by hand."""
from __future__ import annotations

import datetime

import pytest

from fibs_server.protocol import texts
from fibs_server.protocol.login_dialogue import (
    LINE_END,
    TELNET,
    WEB_PAGE,
    Authenticate,
    CheckName,
    CheckRegistrationLimit,
    Client,
    Close,
    LogIn,
    LoginDialogue,
    NotChecked,
    PlayAsVisitor,
    Register,
    RegistrationRefused,
    SendLines,
    SendPrompt,
    SetEcho,
    Stage,
)

ACCOUNT = "alice's account"  # the dialogue passes accounts on without looking into them
LOGIN_PROMPT = SendPrompt("login: ")
PROMPT = SendPrompt("> ")
LINE_TOO_LONG = SendLines(("** Your line was too long and has been ignored.",))


def said(text: str) -> SendLines:
    return SendLines((text,))


def at_password() -> LoginDialogue:
    dialogue = LoginDialogue()
    dialogue.receive("alice")
    return dialogue


def as_guest() -> LoginDialogue:
    dialogue = LoginDialogue()
    dialogue.receive("guest")
    return dialogue


def at_new_password(name: str = "new_user") -> LoginDialogue:
    dialogue = as_guest()
    assert dialogue.receive(f"name {name}") == [CheckRegistrationLimit()]
    assert dialogue.registration_limit_checked(True) == [CheckName(name)]
    dialogue.name_checked(True)
    return dialogue


def at_retype_password(password: str = "secret") -> LoginDialogue:
    dialogue = at_new_password()
    dialogue.receive(password)
    return dialogue


def online(*lines: str) -> LoginDialogue:
    dialogue = LoginDialogue()
    for line in lines:
        dialogue.receive(line)
    dialogue.authenticated(ACCOUNT)
    dialogue.logged_in()
    return dialogue


def test_the_banner_with_the_date_then_the_login_prompt():
    now = datetime.datetime(2026, 11, 30, 10, 31, 52, tzinfo=datetime.timezone.utc)
    assert LoginDialogue().start(now) == [SendLines(tuple(texts.banner(now))), LOGIN_PROMPT]


# --- logging in -------------------------------------------------------------------------------

def test_a_telnet_login_asks_the_password_unechoed_and_logs_in():
    dialogue = LoginDialogue()
    assert dialogue.receive("alice") == [SetEcho(True), SendPrompt("password: ")]
    assert dialogue.stage is Stage.PASSWORD
    assert dialogue.receive(" secret ") == [SetEcho(False), LINE_END,
                                            Authenticate("alice", "secret")]
    assert dialogue.authenticated(ACCOUNT) == [LogIn(ACCOUNT, TELNET)]
    dialogue.logged_in()
    assert dialogue.stage is Stage.ONLINE


def test_a_clip_login_line_logs_in_at_once_without_prompts():
    dialogue = LoginDialogue()
    assert dialogue.receive("login MacFIBS 1008 alice secret") == [Authenticate("alice", "secret")]
    assert dialogue.authenticated(ACCOUNT) == [
        LogIn(ACCOUNT, Client(clip=True, prompts=False, name="MacFIBS"))]


def test_connect_logs_in_with_sentences_but_no_prompts():
    dialogue = LoginDialogue()
    assert dialogue.receive("connect alice secret") == [Authenticate("alice", "secret")]
    assert dialogue.authenticated(ACCOUNT) == [LogIn(ACCOUNT, Client(prompts=False))]


@pytest.mark.parametrize("line, name", [("login a b c", "login"), ("connect alice", "connect"),
                                        ("guest now", "guest")])
def test_a_short_login_or_connect_line_is_a_name(line, name):
    dialogue = LoginDialogue()
    assert dialogue.receive(line) == [SetEcho(True), SendPrompt("password: ")]
    assert dialogue.receive("pw")[-1] == Authenticate(name, "pw")


def test_a_wrong_password_asks_to_log_in_again():
    dialogue = at_password()
    dialogue.receive("wrong")
    assert dialogue.authenticated(None) == [LOGIN_PROMPT]
    assert dialogue.stage is Stage.LOGIN
    assert dialogue.receive("alice") == [SetEcho(True), SendPrompt("password: ")]


def test_a_failed_clip_login_starts_the_prompt_on_a_line_of_its_own_and_forgets_the_client():
    dialogue = LoginDialogue()
    dialogue.receive("login MacFIBS 1008 alice wrong")
    assert dialogue.authenticated(None) == [SendPrompt("\r\nlogin: ")]
    assert dialogue.client == TELNET
    dialogue.receive("alice")
    dialogue.receive("secret")
    assert dialogue.authenticated(ACCOUNT) == [LogIn(ACCOUNT, TELNET)]


@pytest.mark.parametrize("line, prompt", [("login MacFIBS 1008 alice secret", "\r\nlogin: "),
                                          ("connect alice secret", "login: ")])
def test_a_password_not_checked_for_lack_of_time_is_asked_for_again_never_called_wrong(
        line, prompt):
    dialogue = LoginDialogue()
    dialogue.receive(line)
    assert dialogue.authenticated(NotChecked.BUSY) == [
        SendLines((texts.PASSWORD_CHECKS_BUSY,)), SendPrompt(prompt)]
    assert dialogue.stage is Stage.LOGIN and dialogue.client == TELNET
    assert not texts.PASSWORD_CHECKS_BUSY.lower().startswith("login")  # no prompt to misread


def test_a_failed_connect_prompts_again_on_the_same_line():
    dialogue = LoginDialogue()
    dialogue.receive("connect alice wrong")
    assert dialogue.authenticated(None) == [LOGIN_PROMPT]


def test_an_empty_line_at_login_prompts_again():
    assert LoginDialogue().receive("   ") == [LOGIN_PROMPT]


@pytest.mark.parametrize("word", ["bye", "quit", "exit"])
def test_leaving_at_login(word):
    assert LoginDialogue().receive(word) == [Close()]


def test_passwords_stay_out_of_the_actions_reprs():
    assert "s3cret" not in repr(Authenticate("alice", "s3cret"))
    assert "s3cret" not in repr(Register("alice", "s3cret"))


def test_the_web_page_is_a_clip_client_whichever_way_it_comes_in():
    """The WebSocket's connections start as WEB_PAGE: a registration, a visit and a login
    after a failed one all log in as that CLIP client; a CLIP login names its own."""
    dialogue = LoginDialogue(WEB_PAGE)
    dialogue.receive("login web 1008 alice wrong")
    assert dialogue.authenticated(None) == [SendPrompt("\r\nlogin: ")]
    assert dialogue.client == WEB_PAGE
    assert dialogue.receive("bot expert 5") == [PlayAsVisitor("bot expert 5", WEB_PAGE)]
    registering = LoginDialogue(WEB_PAGE)
    registering.receive("guest")
    registering.receive("name new_user")
    registering.registration_limit_checked(True)
    registering.name_checked(True)
    registering.receive("secret")
    registering.receive("secret")
    assert registering.registered(ACCOUNT)[-1] == LogIn(ACCOUNT, WEB_PAGE)
    assert WEB_PAGE == Client(clip=True, prompts=False, name="web")
    assert LoginDialogue().receive("bot") == [PlayAsVisitor("bot", TELNET)]


# --- registering ------------------------------------------------------------------------------

def test_guest_shows_the_welcome_again_for_anything_but_name_and_bye():
    dialogue = LoginDialogue()
    welcome = [SendLines(texts.GUEST_WELCOME), PROMPT]
    assert dialogue.receive("guest") == welcome
    assert dialogue.stage is Stage.GUEST
    assert dialogue.receive("hello") == welcome
    assert dialogue.receive("bye") == [Close()]


def test_a_registration_from_name_to_login():
    dialogue = as_guest()
    assert dialogue.receive("name  new_user ") == [CheckRegistrationLimit()]
    assert dialogue.registration_limit_checked(True) == [CheckName("new_user")]
    assert dialogue.name_checked(True) == [
        SendLines(("Your name will be new_user",
                   "Type in no password and hit Enter/Return if you want to change it now.")),
        SetEcho(True), SendPrompt("Please give your password: ")]
    assert dialogue.receive("secret") == [LINE_END, SendPrompt("Please retype your password: ")]
    assert dialogue.receive("secret") == [LINE_END, SetEcho(False), Register("new_user", "secret")]
    assert dialogue.registered(ACCOUNT) == [
        SendLines(("You are registered.", "Type 'help beginner' to get started.")),
        LogIn(ACCOUNT, TELNET)]


def test_too_many_registrations_are_refused_before_the_name_is_looked_at():
    dialogue = as_guest()
    dialogue.receive("name !!")
    assert dialogue.registration_limit_checked(False) == [said(texts.TOO_MANY_REGISTRATIONS),
                                                          PROMPT]
    assert dialogue.stage is Stage.GUEST


@pytest.mark.parametrize("line, error", [
    ("name bad1", "** Your name may only contain letters and the underscore character _ ."),
    ("name", "** Your name may only contain letters and the underscore character _ ."),
    ("name " + "a" * 21, "** Please use a name with at most 20 characters."),
    ("name ab", "** Please use a name with at least 3 characters."),
])
def test_a_malformed_name_is_refused_without_asking_the_server(line, error):
    dialogue = as_guest()
    dialogue.receive(line)
    assert dialogue.registration_limit_checked(True) == [said(error), PROMPT]
    assert dialogue.stage is Stage.GUEST


def test_a_reserved_or_taken_name_is_refused():
    dialogue = as_guest()
    dialogue.receive("name TAKEN")
    dialogue.registration_limit_checked(True)
    assert dialogue.name_checked(False) == [
        said("** Please use another name. 'TAKEN' is already used by someone else."), PROMPT]
    assert dialogue.stage is Stage.GUEST


def test_a_blank_password_goes_back_to_choosing_a_name():
    dialogue = at_new_password()
    assert dialogue.receive("  ") == [LINE_END, SetEcho(False),
                                      said("** No password given. Please choose a new name"),
                                      PROMPT]
    assert dialogue.stage is Stage.GUEST


@pytest.mark.parametrize("password, error", [
    ("abc", "Minimal password length is 4 characters."),
    ("ab:cd", "Your password may not contain ':'"),
    ("ab cd", "Your password may not contain blanks."),
    ("p" * 73, "Please use a password of at most 72 characters."),
])
def test_a_bad_new_password_is_asked_for_again(password, error):
    dialogue = at_new_password()
    assert dialogue.receive(password) == [LINE_END, said(error),
                                          SendPrompt("Please give your password: ")]
    assert dialogue.stage is Stage.NEW_PASSWORD


def test_a_mismatched_retype_asks_for_both_again():
    dialogue = at_retype_password("secret")
    assert dialogue.receive("other") == [LINE_END, SendPrompt(
        "** The two passwords were not identical. Please give them again. Password: ")]
    assert dialogue.stage is Stage.NEW_PASSWORD
    dialogue.receive("better")
    assert dialogue.receive("better")[-1] == Register("new_user", "better")


def test_too_many_registrations_when_the_account_would_be_made():
    dialogue = at_retype_password()
    dialogue.receive("secret")
    assert dialogue.registered(RegistrationRefused.TOO_MANY_REGISTRATIONS) == [
        said(texts.TOO_MANY_REGISTRATIONS), PROMPT]
    assert dialogue.stage is Stage.GUEST


def test_a_name_taken_while_the_passwords_were_typed():
    dialogue = at_retype_password()
    dialogue.receive("secret")
    assert dialogue.registered(RegistrationRefused.NAME_TAKEN) == [
        said("** Please use another name. 'new_user' is already used by someone else."), PROMPT]
    assert dialogue.stage is Stage.GUEST


# --- the same refused answer again and again ---------------------------------------------------

GOODBYE = said("** The same answer was refused 5 times in a row. Goodbye.")


def test_the_same_refused_password_five_times_in_a_row_closes():
    dialogue = at_new_password()
    for _ in range(4):
        assert dialogue.receive("ab")[-1] == SendPrompt("Please give your password: ")
    assert dialogue.receive("ab") == [LINE_END, GOODBYE, Close()]


def test_another_answer_between_starts_the_count_again():
    dialogue = at_new_password()
    for answer in ["ab"] * 4 + ["abc"] + ["ab"] * 4:
        assert dialogue.receive(answer)[-1] == SendPrompt("Please give your password: ")
    assert dialogue.receive("ab")[-1] == Close()


def test_the_same_refused_name_five_times_in_a_row_closes():
    dialogue = as_guest()
    for _ in range(4):
        dialogue.receive("name guest")
        assert dialogue.registration_limit_checked(True) == [CheckName("guest")]
        assert dialogue.name_checked(False)[-1] == PROMPT
    dialogue.receive("name guest")
    dialogue.registration_limit_checked(True)
    assert dialogue.name_checked(False) == [GOODBYE, Close()]


def test_the_same_unknown_guest_line_five_times_closes_but_empty_lines_do_not():
    dialogue = as_guest()
    for _ in range(20):
        assert dialogue.receive("") == [SendLines(texts.GUEST_WELCOME), PROMPT]
    for _ in range(4):
        assert dialogue.receive("help")[-1] == PROMPT
    assert dialogue.receive("help") == [GOODBYE, Close()]


def test_the_count_is_a_parameter():
    dialogue: LoginDialogue = LoginDialogue(repeated_refusals=2)
    dialogue.receive("guest")
    assert dialogue.receive("x")[-1] == PROMPT
    assert dialogue.receive("x")[-1] == Close()


# --- lines too long ---------------------------------------------------------------------------

def test_a_line_too_long_at_login_prompts_again():
    assert LoginDialogue().line_too_long() == [LINE_TOO_LONG, LOGIN_PROMPT]


def test_a_line_too_long_at_the_password_restores_echo_and_starts_over():
    dialogue = at_password()
    assert dialogue.line_too_long() == [SetEcho(False), LINE_END, LINE_TOO_LONG, LOGIN_PROMPT]
    assert dialogue.stage is Stage.LOGIN


def test_a_line_too_long_as_guest_prompts_again():
    dialogue = as_guest()
    assert dialogue.line_too_long() == [LINE_TOO_LONG, PROMPT]
    assert dialogue.stage is Stage.GUEST


@pytest.mark.parametrize("reach", [at_new_password, at_retype_password])
def test_a_line_too_long_at_a_new_password_restores_echo_and_goes_back_to_guest(reach):
    dialogue = reach()
    assert dialogue.line_too_long() == [SetEcho(False), LINE_END, LINE_TOO_LONG, PROMPT]
    assert dialogue.stage is Stage.GUEST
    dialogue.receive("name other_name")
    dialogue.registration_limit_checked(True)
    dialogue.name_checked(True)
    dialogue.receive("secret")
    assert dialogue.receive("secret")[-1] == Register("other_name", "secret")


@pytest.mark.parametrize("lines, answer", [
    (["alice", "secret"], [LINE_TOO_LONG, PROMPT]),
    (["connect alice secret"], [LINE_TOO_LONG]),
    (["login MacFIBS 1008 alice secret"], [LINE_TOO_LONG]),
])
def test_a_line_too_long_online_prompts_only_telnet_users(lines, answer):
    assert online(*lines).line_too_long() == answer


# --- the connection closing -------------------------------------------------------------------

def test_results_that_come_after_a_hang_up_are_dropped():
    logging_in = at_password()
    logging_in.receive("secret")
    logging_in.closed()
    assert logging_in.authenticated(ACCOUNT) == []

    naming = as_guest()
    naming.receive("name new_user")
    naming.closed()
    assert naming.registration_limit_checked(True) == []

    checking = as_guest()
    checking.receive("name new_user")
    checking.registration_limit_checked(True)
    checking.closed()
    assert checking.name_checked(True) == []

    for outcome in (ACCOUNT, RegistrationRefused.NAME_TAKEN,
                    RegistrationRefused.TOO_MANY_REGISTRATIONS):
        registering = at_retype_password()
        registering.receive("secret")
        registering.closed()
        assert registering.registered(outcome) == []
        assert registering.stage is Stage.CLOSED


def test_nothing_answers_a_closed_connection():
    dialogue = at_password()
    dialogue.closed()
    assert dialogue.receive("secret") == []
    assert dialogue.line_too_long() == []


def test_online_lines_are_not_the_dialogues():
    with pytest.raises(ValueError):
        online("connect alice secret").receive("who")
