"""Load tests: real mlkata processes on loopback, many learners, then an audit of every submission.

``python -m loadtest.run`` (``make loadtest``) starts ``mlkata serve`` and N ``mlkata worker``
processes against a fresh PostgreSQL database and a private ``redis-server``, submits honest,
wrong and hostile solutions from many learners at once, follows each over server-sent events,
and checks the database and the API afterwards: every submission final, exactly one result each.
"""
