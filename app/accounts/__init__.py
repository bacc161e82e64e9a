"""Accounts: passwords, sign-in sessions, CSRF tokens, the login rate limit, and the pages and commands for them."""
