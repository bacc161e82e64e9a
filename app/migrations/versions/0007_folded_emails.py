"""Account e-mails in their one folded form (NFKC and case folding), the form every sign-in looks up

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-08
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from app.accounts.identity import fold

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

log = logging.getLogger(__name__)


def upgrade() -> None:
    # Addresses were stored trimmed and in lower case; ASCII ones are already folded. An address whose folded
    # form another account holds (two that read alike) stays as it was: it still signs in typed as it is.
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, email FROM users ORDER BY created_at")).all()
    taken = {email for _, email in rows}
    for user_id, email in rows:
        folded = fold(email)
        if folded == email:
            continue
        if folded in taken:
            log.warning("account %s keeps its address %r: its folded form %r is another account's", user_id, email,
                        folded)  # fmt: skip
            continue
        bind.execute(sa.text("UPDATE users SET email = :email WHERE id = :id"), {"email": folded, "id": user_id})
        taken.discard(email)
        taken.add(folded)


def downgrade() -> None:
    # Nothing to undo: a folded address is a trimmed, lower-case address, as the previous revision stores them.
    pass
