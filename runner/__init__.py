"""What runs inside the sandbox, next to the student's code: the runner, the zygote, the wire format and protocol."""
