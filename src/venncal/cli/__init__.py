"""The ``venncal`` command line (the top layer: the only one that prints and writes files).

Errors in what the user gave (missing or malformed files, bad columns, bad options) exit with
code 2 and a one-line message.
"""

import click

from venncal import __version__

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="venncal")
def main():
    """Trustworthy probabilities for binary classifiers: Venn-Abers and friends."""


def _register():
    from venncal.cli.apply import apply
    from venncal.cli.calibrate import calibrate
    from venncal.cli.compare import compare
    from venncal.cli.demo import demo
    from venncal.cli.evaluate import evaluate
    from venncal.cli.fit import fit
    from venncal.cli.reproduce import reproduce

    for command in (demo, reproduce, calibrate, fit, apply, evaluate, compare):
        main.add_command(command)


_register()
