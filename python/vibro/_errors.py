"""The package's one exception."""


class VibroError(Exception):
    """A vibro file that cannot be read as asked, or a vibro run that failed.

    The message is one line in vibro's style: the file, then what is wrong
    (for a failed run, vibro's own `file:line: object: what (valid: ...)`).
    `returncode` is vibro's exit status for a failed run, else None."""

    def __init__(self, message, returncode=None):
        super().__init__(message)
        self.returncode = returncode
