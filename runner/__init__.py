"""What runs inside the sandbox, next to the student's code: the runner, the wire format and protocol, the jail."""
