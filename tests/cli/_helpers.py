"""Assertions shared by the command-line tests."""


def expect_usage_error(result, *fragments):
    """Exit code 2 and a one-line ``Error: ...`` message (click may print usage lines above)."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    message = lines[-1]
    assert message.startswith("Error: "), result.output
    assert sum(line.startswith("Error:") for line in lines) == 1, result.output
    for fragment in fragments:
        assert fragment in message, message
