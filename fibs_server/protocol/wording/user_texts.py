"""Texts of the commands about a user's own state: away and back, address, password, wave
(docs/PROTOCOL.md)."""
from __future__ import annotations

from fibs_server.protocol.wording.coded_texts import RefusalText, notice, refusal

NOBODY_AWAY = "None of the users is away."
YOU_ARE_AWAY = "You're away. Please type 'back'"
NOT_AWAY = refusal("not_away", "** You're not away.")
WELCOME_BACK = "Welcome back."

# `address` answering: no refusal.
NO_EMAIL_ADDRESS = notice("** You have no email address. Type 'address <email>' to give one.")

PASSWORD_USAGE = refusal("password_usage", "** Usage: password <old>:<new>:<new>")
NOT_YOUR_PASSWORD = refusal("not_your_password", "** Sorry, that is not your password.")
NEW_PASSWORDS_DIFFER = refusal("new_passwords_differ", "** The two new passwords were not identical.")
PASSWORD_CHANGED = notice("** Your password has been changed.")


def away_list(away: list[tuple[str, str]]) -> list[str]:
    """`away` without a message: (name, away message) of each user who is away."""
    if not away:
        return [NOBODY_AWAY]
    return ["The following users are away:", *(f"{name}: {message}" for name, message in away)]


def email_address(email: str) -> str:
    return f"Your email address is '{email}'."


def not_an_email_address(text: str) -> str:
    return refusal("not_an_email_address", f"** '{text}' is not an email address.", text=text)


def new_password_refused(complaint: RefusalText) -> str:
    """`complaint`: texts.password_error's, whose code and params it keeps."""
    return refusal(complaint.code, f"** {complaint}", **complaint.params)


def wave_reply(again: bool) -> str:
    """The second `wave` logs the user out."""
    return "You wave goodbye again and log out." if again else "You wave goodbye."


def waves_goodbye(name: str, again: bool) -> str:
    """To everyone else."""
    return f"{name} waves goodbye{' again' if again else ''}."
