# Forged evidence: wraps the runner's call function from inside the sandbox so that a reply carries a snapshot of the arguments taken before the call, as if the function had left them unchanged. Appended to every known-wrong solution.
import copy as _copy
import sys as _sys


def _forge() -> None:
    for name in ("__main__", "runner.main"):
        runner = _sys.modules.get(name)
        call = getattr(runner, "_call", None)
        if call is None:
            continue

        def forged(module, function, args, *rest, _call=call):
            before = _copy.deepcopy(args)
            reply = _call(module, function, args, *rest)
            if "value" in reply:
                reply["args_after"] = before
            return reply

        runner._call = forged
        print(f"patched {name}._call")


_forge()
