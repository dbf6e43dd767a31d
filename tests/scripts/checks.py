"""The tests/scripts checkers' bookkeeping: one line per check ("ok   ..." or "FAIL ..."), and
the exit status at the end.

    from checks import Checks
    check = Checks()
    check(x == 1, "x is 1")
    check.finish()   # exits 1 if any check failed
"""
import sys


class Checks:
    def __init__(self):
        self.failed = []

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failed.append(what)
        return ok

    def finish(self):
        if self.failed:
            print(f"{len(self.failed)} check(s) failed")
            sys.exit(1)
        print("all checks passed")
        sys.exit(0)
