"""The ``venncal`` command line (the top layer: the only one that prints and writes files).

Errors in what the user gave (missing or malformed files, bad columns, bad options) exit with
code 2 and a one-line message.
"""

import click

from venncal import __version__

__all__ = ["main"]


# command name -> module defining it (a function of the same name), imported when run, so
# that one command does not pay for the imports of every other
_COMMANDS = {
    "demo": "venncal.cli.demo",
    "reproduce": "venncal.cli.reproduce",
    "calibrate": "venncal.cli.calibrate",
    "fit": "venncal.cli.fit",
    "apply": "venncal.cli.apply",
    "export": "venncal.cli.export",
    "evaluate": "venncal.cli.evaluate",
    "compare": "venncal.cli.compare",
    "monitor": "venncal.cli.monitor",
}


# command name -> its line in ``venncal --help``: it must fit an 80-column terminal beside the
# longest name (click cuts a longer first sentence of the help with "...")
_SHORT_HELP = {
    "demo": "Calibrate a classifier on built-in data and compare.",
    "reproduce": "Reproduce the experiment of a paper.",
    "calibrate": "Fit a calibrator and calibrate a test file in one go.",
    "fit": "Fit a calibrator and save it as a model file.",
    "apply": "Calibrate scores with a saved model file.",
    "export": "Write a saved calibrator as SQL or ONNX.",
    "evaluate": "Print calibration and accuracy metrics of probabilities.",
    "compare": "Compare calibrators on scores and labels.",
    "monitor": "Test whether a stream of probabilities stays calibrated.",
}


def _terminated(signum, frame):
    """SIGTERM ends a command like an interrupt: the cleanup of partial outputs runs."""
    click.echo("Error: terminated; outputs not finished were not moved into place.", err=True)
    raise SystemExit(128 + signum)


class _Refused(click.ClickException):
    """A one-line error found at the top (out of memory, a file the system refuses); exit 2."""

    exit_code = 2


class _LazyGroup(click.Group):
    def invoke(self, ctx):
        # the command's cleanup (removal of partial outputs) has run when these arrive here
        try:
            return super().invoke(ctx)
        except MemoryError:  # pyarrow's ArrowMemoryError is one too
            raise _Refused(
                "out of memory; outputs not finished were not moved into place. Free memory, "
                "or give smaller inputs or fewer columns."
            ) from None
        except PermissionError as exc:
            where = f" {exc.filename!r}" if exc.filename else ""
            raise _Refused(f"the system refused access to{where}: {exc.strerror or exc}.") from None

    def main(self, *args, **kwargs):
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return super().main(*args, **kwargs)
        previous = signal.signal(signal.SIGTERM, _terminated)
        try:
            return super().main(*args, **kwargs)
        finally:
            signal.signal(signal.SIGTERM, previous)

    def list_commands(self, ctx):
        # the known commands in their order whether or not they are loaded yet, then any other
        return list(dict.fromkeys([*_COMMANDS, *super().list_commands(ctx)]))

    def get_command(self, ctx, name):
        if name not in self.commands and name in _COMMANDS:
            from importlib import import_module

            command = getattr(import_module(_COMMANDS[name]), name)
            if command.short_help is None and name in _SHORT_HELP:
                command.short_help = _SHORT_HELP[name]
            self.add_command(command, name)
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="venncal")
def main() -> None:
    """Trustworthy probabilities for binary classifiers: Venn-Abers and friends."""
