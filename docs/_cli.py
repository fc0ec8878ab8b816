"""Write the command-line reference (``user_guide/cli_reference.md``) from the commands' help."""

from __future__ import annotations

from pathlib import Path


def write_cli_reference(path):
    import click

    from venncal.cli import main

    lines = [
        "# Command-line reference",
        "",
        "The help of every ``venncal`` command, as ``venncal COMMAND --help`` prints it.",
        "",
    ]
    # the group loads its commands when asked for them (main.commands starts empty)
    with click.Context(main, info_name="venncal") as group:
        names = sorted(main.list_commands(group))
        commands = {name: main.get_command(group, name) for name in names}
    for name, command in commands.items():
        with click.Context(command, info_name=f"venncal {name}", terminal_width=100) as ctx:
            text = command.get_help(ctx)
        lines += [f"## venncal {name}", "", "```text", text, "```", ""]
    new = "\n".join(lines)
    path = Path(path)
    if not path.exists() or path.read_text() != new:
        path.write_text(new)
