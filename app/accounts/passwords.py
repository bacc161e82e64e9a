"""Password hashing with argon2id (argon2-cffi), and what a password must be."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD = 8
#: Longer passwords are refused rather than hashed: a megabyte of "password" is a way to burn the CPU.
MAX_PASSWORD = 256


class Passwords:
    """Hashes and verifies passwords.

    argon2-cffi's defaults (RFC 9106's second recommendation: 64 MiB, 3 passes, 4 lanes) make each hash
    cost about 64 MiB and a core for a moment; the web app computes them only inside a place of its
    :class:`~app.accounts.hashing.HashGate`, which bounds how many run and wait.
    """

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()
        # Verified against when the e-mail has no account, so both answers take the same time.
        self._decoy = self.hash("not a password of anyone's")

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (None: no such account, checked against a decoy all the same)."""
        try:
            return self.hasher.verify(stored or self._decoy, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """True once the parameters have been raised since ``stored`` was made."""
        return self.hasher.check_needs_rehash(stored)


def password_problem(password: str, email: str = "") -> str | None:
    """Why ``password`` cannot be used, for the person choosing it; None when it can."""
    if len(password) < MIN_PASSWORD:
        return f"Choose a password of at least {MIN_PASSWORD} characters."
    if len(password) > MAX_PASSWORD:
        return f"Choose a password of at most {MAX_PASSWORD} characters."
    if email and password.strip().lower() == email.strip().lower():
        return "Choose a password other than your e-mail address."
    return None
