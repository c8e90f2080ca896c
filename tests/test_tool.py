"""The `stepcheck` command: its subcommands and its errors."""
from __future__ import annotations

from stepcheck import tool


def test_help_lists_every_subcommand(capsys):
    assert tool.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name}" in out for name in tool.SUBCOMMANDS)
    assert tool.main([]) == 2  # no command: the usage, and a usage error


def test_unknown_command_suggests_the_closest(capsys):
    assert tool.main(["fnt"]) == 2
    err = capsys.readouterr().err
    assert "no command `fnt`" in err and "did you mean `fmt`" in err


def test_verify_is_dispatched_with_its_arguments(tmp_path, capsys):
    f = tmp_path / "a.step"
    f.write_text("random X\nstep lin: E[2 X] = 2 E[X]\n", encoding="utf-8")
    assert tool.main(["verify", "--no-color", "--no-cache", str(f)]) == 0
    assert "1 holds" in capsys.readouterr().out
    f.write_text("random X\nstep lin: E[2 X] = 3 E[X]\n", encoding="utf-8")
    assert tool.main(["verify", "--no-color", "--no-cache", str(f)]) == 1


def test_every_subcommand_module_has_a_main():
    import importlib

    for module, func, _ in tool.SUBCOMMANDS.values():
        assert callable(getattr(importlib.import_module(module), func))
